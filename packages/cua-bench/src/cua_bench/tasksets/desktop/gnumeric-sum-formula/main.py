"""gnumeric-sum-formula: below a column of numbers, add a SUM formula for their total, and save."""

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
    formula = (await formulas(session, meta["path"])).get(meta["target"], "")
    expected = [*meta["rows"], ["", meta["total"]]]
    ok = formula.upper().replace(" ", "").startswith("=SUM(")
    return [1.0 if ok and matches(await sheet_rows(session, meta["path"]), expected) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    first, last = cell_name(1, meta["col"]), cell_name(meta["row"] - 1, meta["col"])
    await goto(session, meta["row"], meta["col"])
    await act(session, TypeText(f"=SUM({first}:{last})", press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")
