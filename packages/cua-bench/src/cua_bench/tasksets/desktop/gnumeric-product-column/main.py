"""gnumeric-product-column: add a column of formulas multiplying two columns, row by row, and save."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import WORDS, act, file_title, loaders, save_and_wait, start
from cua_bench.tasksets.desktop._sheets import (
    ITEMS,
    Cell,
    cell_name,
    formulas,
    goto,
    make_workbook,
    matches,
    price,
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
    found = await formulas(session, meta["path"])
    all_formulas = all(cell_name(row, 3) in found for row in range(1, len(meta["rows"])))
    return [1.0 if all_formulas and matches(await sheet_rows(session, meta["path"]), meta["expected"]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    lines = [meta["header"]] + [f"=B{row + 1}*C{row + 1}" for row in range(1, len(meta["rows"]))]
    await goto(session, 0, 3)
    await act(session, TypeText("\n".join(lines), press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")
