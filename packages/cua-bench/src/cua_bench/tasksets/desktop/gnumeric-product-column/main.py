"""gnumeric-product-column: add a column of formulas multiplying two columns, row by row, and save.

The evaluator checks that each row's D cell multiplies that row's qty and price cells (``=B2*C2``,
either order, or PRODUCT over them; typed numbers, even in a formula, are not), that these are the
only formulas, that the header is there and every other cell keeps its value, and that no other file
under home changed.
Wrong ways: ``typed_numbers_multiplied`` (``=4*2.5`` per row: the right values, no references) and
``oracle_then_clears_a_header`` (the column, then the 'item' header deleted).
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
    formulas,
    goto,
    make_workbook,
    matches,
    others_unchanged,
    price,
    product_of,
    sheet_rows,
)
from cua_core.actions import TypeText

NAME = "gnumeric-product-column"


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{rng.choice(['order', 'invoice', 'basket'])}_{rng.randint(1, 99)}.gnumeric"
    rows: list[list[Cell]] = [["item", "qty", "price"]]
    rows += [[item, rng.randint(1, 20), price(rng)] for item in rng.sample(ITEMS, rng.randint(2, 6))]
    header = rng.choice(["total", "cost", "amount", "subtotal"])
    expected = [[*rows[0], header]] + [[*row, float(row[1]) * float(row[2])] for row in rows[1:]]
    last = len(rows) - 1
    return cb.Task(
        description=f"The workbook ~/{path} is open in Gnumeric. In column D, put the header '{header}' in D1 and, "
        f"in D2:D{last + 1}, formulas that multiply each row's qty by its price (D2 is =B2*C2, and so on). "
        "Then save the workbook (ctrl+s).",
        metadata={"path": path, "rows": rows, "expected": expected, "header": header},
        max_steps=20,
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
    rows = range(1, len(meta["rows"]))
    ok = set(found) == {cell_name(row, 3) for row in rows}
    ok = ok and all(product_of(found[cell_name(row, 3)], {cell_name(row, 1), cell_name(row, 2)}) for row in rows)
    ok = ok and matches(await sheet_rows(session, meta["path"]), meta["expected"])
    ok = ok and await others_unchanged(session, task.scratch["before"], [meta["path"]])
    return [1.0 if ok else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    lines = [meta["header"]] + [f"=B{row + 1}*C{row + 1}" for row in range(1, len(meta["rows"]))]
    await goto(session, 0, 3)
    await act(session, TypeText("\n".join(lines), press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")


@cb.wrong_way
async def typed_numbers_multiplied(task: cb.Task, session: cb.Session) -> None:
    """Each row's qty and price read off the screen and multiplied in a formula: right values, no references."""
    meta = task.metadata
    lines = [meta["header"]] + [f"={row[1]}*{row[2]}" for row in meta["rows"][1:]]
    await goto(session, 0, 3)
    await act(session, TypeText("\n".join(lines), press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")


@cb.wrong_way
async def oracle_then_clears_a_header(task: cb.Task, session: cb.Session) -> None:
    """The new column, then the 'item' header deleted."""
    await solve(task, session)
    await goto(session, 0, 0)
    await act(session, key("delete"))
    await save_and_wait(session, task.metadata["path"], "Gnumeric")
