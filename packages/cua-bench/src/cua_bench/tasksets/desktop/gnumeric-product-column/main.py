"""gnumeric-product-column: add a column of formulas multiplying two columns, row by row, and save.

The evaluator reads the saved workbook cell by cell with types (``_sheets.scored``): each row's D
cell is a formula multiplying that row's qty and price cells (``=B2*C2``, either order, or PRODUCT
over them; typed numbers, even in a formula, are not) that computes their product, the header is
there, every other cell is as it was, there is no other sheet, and no other file under home changed.
Wrong ways: ``typed_numbers_multiplied`` (``=4*2.5`` per row: the right values, no references) and
``oracle_then_clears_a_header`` (the column, then the 'item' header deleted).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import OUTPUT_IS_THE_WORK, WORDS, act, key, loaders, save_and_wait
from cua_bench.tasksets.desktop._sheets import (
    ITEMS,
    Cell,
    Formula,
    Want,
    cell_name,
    goto,
    open_workbook,
    price,
    product_of,
    scored,
)
from cua_core.actions import TypeText

NAME = "gnumeric-product-column"
WAIVED = OUTPUT_IS_THE_WORK


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
    await open_workbook(task, session)


def product(row: int, value: float) -> Formula:
    """Row ``row``'s new cell: a formula over that row's qty and price cells that gives ``value``."""
    over = {cell_name(row, 1), cell_name(row, 2)}
    return Formula(lambda text: product_of(text, over), value)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    header, *rows = task.metadata["expected"]
    wanted: list[list[Want]] = [header] + [[*row[:3], product(r, row[3])] for r, row in enumerate(rows, start=1)]
    return await scored(task, session, wanted)


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
