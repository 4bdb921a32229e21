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
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._gnumeric import Entry, WorkbookEdit, enter
from cua_bench_tasks_desktop._sheets import ITEMS, Cell, Formula, Want, cell_name, price, product_of

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


def product(row: int, value: float) -> Formula:
    """Row ``row``'s new cell: a formula over that row's qty and price cells that gives ``value``."""
    over = {cell_name(row, 1), cell_name(row, 2)}
    return Formula(lambda text: product_of(text, over), value)


def wanted(meta: Meta) -> list[list[Want]]:
    header, *rows = meta["expected"]
    return [header] + [[*row[:3], product(r, row[3])] for r, row in enumerate(rows, start=1)]


def column(meta: Meta, formulas: list[str]) -> Entry:
    """The header in D1, and ``formulas`` below it."""
    return 0, 3, "\n".join([meta["header"], *formulas])


def references(meta: Meta) -> list[str]:
    """D2 is =B2*C2, and so on: each row's qty times its price, by reference."""
    return [f"=B{row + 1}*C{row + 1}" for row in range(1, len(meta["rows"]))]


EDIT = WorkbookEdit(wanted, lambda meta: column(meta, references(meta)))
setup, evaluate, solve = EDIT.functions()


@cb.wrong_way
async def typed_numbers_multiplied(task: cb.Task, session: cb.Session) -> None:
    """Each row's qty and price read off the screen and multiplied in a formula: right values, no references."""
    await enter(task, session, column(task.metadata, [f"={row[1]}*{row[2]}" for row in task.metadata["rows"][1:]]))


oracle_then_clears_a_header = EDIT.oracle_then_clears(
    "oracle_then_clears_a_header", "The new column, then the 'item' header deleted.", lambda meta: (0, 0)
)
