"""gnumeric-add-row: add a new row at the bottom of a table in Gnumeric and save.

The evaluator reads the saved workbook cell by cell with types (``_sheets.scored``): the old rows
as they were, the new one right below them with its numbers stored as numbers, nothing else (no
formula, no other sheet), and no other file under home changed.
Wrong ways: ``overwrites_the_last_row`` (the new row typed over the table's last one),
``oracle_then_clears_a_price`` (the new row, then the first item's price deleted) and
``numbers_typed_as_text`` (the new row's numbers typed as ``'12``: the right digits, stored as text).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._gnumeric import Entry, WorkbookEdit, enter
from cua_bench_tasks_desktop._sheets import ITEMS, Cell, price

NAME = "gnumeric-add-row"
WAIVED = OUTPUT_IS_THE_WORK


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


def row_at(row: int, values: list[Cell]) -> Entry:
    """``values`` typed along the row ``row``, from column A."""
    return row, 0, "\t".join(str(v) for v in values)


EDIT = WorkbookEdit(lambda meta: [*meta["rows"], meta["new"]], lambda meta: row_at(len(meta["rows"]), meta["new"]))
setup, evaluate, solve = EDIT.functions()


@cb.wrong_way
async def overwrites_the_last_row(task: cb.Task, session: cb.Session) -> None:
    """The new row typed one row too high, over the table's last row."""
    meta = task.metadata
    await enter(task, session, row_at(len(meta["rows"]) - 1, meta["new"]))


oracle_then_clears_a_price = EDIT.oracle_then_clears(
    "oracle_then_clears_a_price", "The new row, then the first item's price deleted.", lambda meta: (1, 2)
)


@cb.wrong_way
async def numbers_typed_as_text(task: cb.Task, session: cb.Session) -> None:
    """The new row with its qty and price typed after an apostrophe: the right digits, stored as text."""
    meta = task.metadata
    item, *numbers = meta["new"]
    await enter(task, session, row_at(len(meta["rows"]), [item, *(f"'{number}" for number in numbers)]))
