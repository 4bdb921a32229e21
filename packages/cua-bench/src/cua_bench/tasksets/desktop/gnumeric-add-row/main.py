"""gnumeric-add-row: add a new row at the bottom of a table in Gnumeric and save.

The evaluator checks the whole sheet (the old rows as they were, the new one right below them,
nothing else), that it holds no formulas, and that no other file under home changed.
Wrong ways: ``overwrites_the_last_row`` (the new row typed over the table's last one) and
``oracle_then_clears_a_price`` (the new row, then the first item's price deleted).
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

NAME = "gnumeric-add-row"


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{rng.choice(['pantry', 'orders', 'stock'])}_{rng.randint(1, 99)}.gnumeric"
    items = rng.sample(ITEMS, rng.randint(3, 8))
    new_item = items.pop()
    rows: list[list[Cell]] = [["item", "qty", "price"]]
    rows += [[item, rng.randint(1, 50), price(rng)] for item in items]
    new_row: list[Cell] = [new_item, rng.randint(1, 50), price(rng)]
    return cb.Task(
        description=f"The workbook ~/{path} is open in Gnumeric. Add a row for {new_item} with qty {new_row[1]} "
        f"and price {new_row[2]} directly below the last row of the table, then save the workbook (ctrl+s).",
        metadata={"path": path, "rows": rows, "new": new_row},
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
    ok = matches(await sheet_rows(session, meta["path"]), [*meta["rows"], meta["new"]])
    ok = ok and not await formulas(session, meta["path"])
    ok = ok and await others_unchanged(session, task.scratch["before"], [meta["path"]])
    return [1.0 if ok else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await add(session, meta["path"], len(meta["rows"]), meta["new"])


async def add(session: cb.Session, path: str, row: int, values: list[Cell]) -> None:
    await goto(session, row, 0)
    await act(session, TypeText("\t".join(str(v) for v in values), press_enter=True))
    await save_and_wait(session, path, "Gnumeric")


@cb.wrong_way
async def overwrites_the_last_row(task: cb.Task, session: cb.Session) -> None:
    """The new row typed one row too high, over the table's last row."""
    meta = task.metadata
    await add(session, meta["path"], len(meta["rows"]) - 1, meta["new"])


@cb.wrong_way
async def oracle_then_clears_a_price(task: cb.Task, session: cb.Session) -> None:
    """The new row, then the first item's price deleted."""
    await solve(task, session)
    await goto(session, 1, 2)
    await act(session, key("delete"))
    await save_and_wait(session, task.metadata["path"], "Gnumeric")
