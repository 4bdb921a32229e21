"""gnumeric-edit-cell: change one value of a table in Gnumeric (found by its row label) and save.

The evaluator checks the whole sheet (the one value changed, every other cell as it was), that it
holds no formulas, and that no other file under home changed.
Wrong ways: ``edits_the_other_column`` (the new value typed into the row's other number) and
``oracle_then_clears_another_label`` (the edit, then another row's item name deleted).
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
    formulas,
    goto,
    make_workbook,
    matches,
    others_unchanged,
    price,
    sheet_rows,
)
from cua_core.actions import TypeText

NAME = "gnumeric-edit-cell"
COLUMNS = ("qty", "price")


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{rng.choice(['inventory', 'orders', 'stock'])}_{rng.randint(1, 99)}.gnumeric"
    rows: list[list[Cell]] = [["item", *COLUMNS]]
    rows += [[item, rng.randint(1, 50), price(rng)] for item in rng.sample(ITEMS, rng.randint(3, 8))]
    row = rng.randint(1, len(rows) - 1)
    col = rng.randint(1, 2)
    value: Cell = rng.randint(51, 99) if col == 1 else price(rng) + 25
    expected = [list(r) for r in rows]
    expected[row][col] = value
    return cb.Task(
        description=f"The workbook ~/{path} is open in Gnumeric. Change the {COLUMNS[col - 1]} of {rows[row][0]} "
        f"to {value}, then save the workbook (ctrl+s).",
        metadata={"path": path, "rows": rows, "expected": expected, "row": row, "col": col, "value": value},
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
    ok = matches(await sheet_rows(session, meta["path"]), meta["expected"])
    ok = ok and not await formulas(session, meta["path"])
    ok = ok and await others_unchanged(session, task.scratch["before"], [meta["path"]])
    return [1.0 if ok else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await put(session, meta["path"], meta["row"], meta["col"], meta["value"])


async def put(session: cb.Session, path: str, row: int, col: int, value: Cell) -> None:
    await goto(session, row, col)
    await act(session, TypeText(str(value), press_enter=True))
    await save_and_wait(session, path, "Gnumeric")


@cb.wrong_way
async def edits_the_other_column(task: cb.Task, session: cb.Session) -> None:
    """The new value typed into the row's other number (qty for price, or price for qty)."""
    meta = task.metadata
    await put(session, meta["path"], meta["row"], 3 - meta["col"], meta["value"])


@cb.wrong_way
async def oracle_then_clears_another_label(task: cb.Task, session: cb.Session) -> None:
    """The edit, then another row's item name deleted."""
    await solve(task, session)
    await goto(session, 1 if task.metadata["row"] != 1 else 2, 0)
    await act(session, key("delete"))
    await save_and_wait(session, task.metadata["path"], "Gnumeric")
