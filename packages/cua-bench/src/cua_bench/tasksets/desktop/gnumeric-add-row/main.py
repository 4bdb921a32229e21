"""gnumeric-add-row: add a new row at the bottom of a table in Gnumeric and save."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import WORDS, act, file_title, loaders, save_and_wait, start
from cua_bench.tasksets.desktop._sheets import ITEMS, Cell, goto, make_workbook, matches, price, sheet_rows
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
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await make_workbook(session, meta["path"], meta["rows"])
    await start(session, "gnumeric", meta["path"], title=file_title(meta["path"], "Gnumeric"))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [1.0 if matches(await sheet_rows(session, meta["path"]), [*meta["rows"], meta["new"]]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await goto(session, len(meta["rows"]), 0)
    await act(session, TypeText("\t".join(str(v) for v in meta["new"]), press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")
