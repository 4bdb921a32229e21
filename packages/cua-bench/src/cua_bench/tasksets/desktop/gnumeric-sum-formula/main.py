"""gnumeric-sum-formula: below a column of numbers, add a SUM formula for their total, and save.

The evaluator checks that the target cell holds SUM over exactly the amounts (a typed total, even
inside ``=SUM(...)``, or a range with extra cells is not the formula asked for), that it is the only
formula, that every other cell keeps its value, and that no other file under home changed.
Wrong ways: ``typed_total_in_sum`` (``=SUM(<the total>)``: the right value, no references) and
``oracle_then_clears_a_label`` (the formula, then one item's label deleted).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    WORDS,
    act,
    file_title,
    key,
    loaders,
    save_and_wait,
    snapshot_files,
    start,
)
from cua_bench.tasksets.desktop._sheets import (
    ITEMS,
    Cell,
    cell_name,
    cells,
    formulas,
    goto,
    make_workbook,
    matches,
    others_unchanged,
    price,
    refers_to,
    sheet_rows,
)
from cua_core.actions import TypeText

NAME = "gnumeric-sum-formula"


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{rng.choice(['expenses', 'sales', 'budget', 'costs'])}_{rng.randint(1, 99)}.gnumeric"
    count = rng.randint(3, 8)
    header: list[Cell] = ["item", "amount"]
    rows: list[list[Cell]] = [header] + [[item, price(rng)] for item in rng.sample(ITEMS, count)]
    col = 1
    target = cell_name(count + 1, col)
    return cb.Task(
        description=f"The workbook ~/{path} is open in Gnumeric. In cell {target}, enter a SUM formula that adds "
        f"up the amounts {cell_name(1, col)}:{cell_name(count, col)}, then save the workbook (ctrl+s).",
        metadata={
            "path": path,
            "rows": rows,
            "target": target,
            "row": count + 1,
            "col": col,
            "total": sum(float(row[1]) for row in rows[1:]),
        },
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await make_workbook(session, meta["path"], meta["rows"])
    await start(session, "gnumeric", meta["path"], title=file_title(meta["path"], "Gnumeric"))
    task.scratch["before"] = await snapshot_files(session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    found = await formulas(session, meta["path"])
    amounts = cells(f"{cell_name(1, meta['col'])}:{cell_name(meta['row'] - 1, meta['col'])}") or set()
    ok = set(found) == {meta["target"]} and refers_to(found[meta["target"]], "SUM", amounts)
    ok = ok and matches(await sheet_rows(session, meta["path"]), [*meta["rows"], ["", meta["total"]]])
    ok = ok and await others_unchanged(session, task.scratch["before"], [meta["path"]])
    return [1.0 if ok else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    first, last = cell_name(1, meta["col"]), cell_name(meta["row"] - 1, meta["col"])
    await goto(session, meta["row"], meta["col"])
    await act(session, TypeText(f"=SUM({first}:{last})", press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")


@cb.wrong_way
async def typed_total_in_sum(task: cb.Task, session: cb.Session) -> None:
    """The total read off the screen and typed inside SUM: the right value over no cells."""
    meta = task.metadata
    await goto(session, meta["row"], meta["col"])
    await act(session, TypeText(f"=SUM({meta['total']:g})", press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")


@cb.wrong_way
async def oracle_then_clears_a_label(task: cb.Task, session: cb.Session) -> None:
    """The formula, then one item's name deleted (the total does not change)."""
    await solve(task, session)
    await goto(session, 1, 0)
    await act(session, key("delete"))
    await save_and_wait(session, task.metadata["path"], "Gnumeric")
