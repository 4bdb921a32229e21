"""calc-product-column: in LibreOffice Calc, fill a new "total" column with each row's qty times price as
formulas, and save the workbook in its own format (``.ods`` or ``.xlsx``, by variant).

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``): D1 holds the
header ``total``, and each item's row a product of exactly its own qty and price cells (``=B2*C2`` or
``=PRODUCT(B2:C2)``) with Calc's result; every other cell is as it was, no other sheet, and no other file
under home changed.
Wrong ways: ``typed_products`` (the products computed and typed as numbers), ``last_row_missing`` (every
row but the last), ``products_of_the_row_above`` (each formula one row off, the first over the header)
and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import CalcEdit, Entry, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Cell, Formula, Want, price, product_of

NAME = "calc-product-column"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    ext = rng.choice([".ods", ".xlsx"])
    path = f"{rng.choice(WORDS)}/{rng.choice(['orders', 'invoice', 'cart'])}_{rng.randint(1, 99)}{ext}"
    rows: list[list[Cell]] = [["item", "qty", "price"]]
    rows += [[item, rng.randint(1, 12), price(rng)] for item in rng.sample(ITEMS, rng.randint(2, 6))]
    return cb.Task(
        description=f"The workbook ~/{path} is open in LibreOffice Calc. In column D, put the header total in D1 "
        "and, for each item, a formula that multiplies its qty by its price; then save the workbook in its "
        "current format.",
        metadata={"path": path, "rows": rows},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def wanted(meta: Meta) -> dict[str, list[list[Want]]]:
    sheet: list[list[Want]] = [[*meta["rows"][0], "total"]]
    for r, (item, qty, cost) in enumerate(meta["rows"][1:], start=2):
        over = {f"B{r}", f"C{r}"}
        sheet.append([item, qty, cost, Formula(lambda text, over=over: product_of(text, over), qty * cost)])
    return {SHEET: sheet}


def typed(meta: Meta, shift: int = 0, rows: int | None = None) -> list[Entry]:
    count = len(meta["rows"]) - 1 if rows is None else rows
    column = "\n".join(f"=B{r - shift}*C{r - shift}" for r in range(2, count + 2))
    return [(0, 3, f"total\n{column}")]


EDIT = CalcEdit(wanted, typed)
setup, evaluate, solve = EDIT.functions()


async def _typed(task: cb.Task, session: cb.Session, entries: list[Entry]) -> None:
    await type_entries(session, entries)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def typed_products(task: cb.Task, session: cb.Session) -> None:
    """Each product worked out and typed as a number: the right values, no formulas."""
    values = "\n".join(f"{qty * cost:g}" for _, qty, cost in task.metadata["rows"][1:])
    await _typed(task, session, [(0, 3, f"total\n{values}")])


@cb.wrong_way
async def last_row_missing(task: cb.Task, session: cb.Session) -> None:
    """The formulas for every item but the last."""
    await _typed(task, session, typed(task.metadata, rows=len(task.metadata["rows"]) - 2))


@cb.wrong_way
async def products_of_the_row_above(task: cb.Task, session: cb.Session) -> None:
    """Each formula over the row above its own (the first over the header)."""
    await _typed(task, session, typed(task.metadata, shift=1))


never_saved = EDIT.unsaved("never_saved", "The column typed and never saved.")
