"""gnumeric-edit-cell: change one value of a table in Gnumeric (found by its row label) and save."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import WORDS, act, file_title, loaders, save_and_wait, start
from cua_bench.tasksets.desktop._sheets import ITEMS, Cell, goto, make_workbook, matches, price, sheet_rows
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
    return [1.0 if matches(await sheet_rows(session, meta["path"]), meta["expected"]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await goto(session, meta["row"], meta["col"])
    await act(session, TypeText(str(meta["value"]), press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")
