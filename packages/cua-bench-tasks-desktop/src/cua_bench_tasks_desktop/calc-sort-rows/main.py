"""calc-sort-rows: sort a table's rows by one of its columns in LibreOffice Calc (ascending or descending,
by variant) and save it in its own format (``.ods`` or ``.xlsx``).

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``): the header
row first, then every row whole (its item, qty and price kept together) in the asked order of the asked
column (its values are distinct, so one order is right); no other sheet, no other file under home changed.
Wrong ways: ``sorted_the_other_way``, ``sorted_by_another_column`` and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import goto, open_book, scored
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, act, key, loaders
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Cell

NAME = "calc-sort-rows"
WAIVED = OUTPUT_IS_THE_WORK
COLUMNS = ("item", "qty", "price")


def build(rng: random.Random) -> cb.Task:
    ext = rng.choice([".ods", ".xlsx"])
    path = f"{rng.choice(WORDS)}/{rng.choice(['stock', 'orders', 'pantry'])}_{rng.randint(1, 99)}{ext}"
    count = rng.randint(4, 8)
    qtys = rng.sample(range(1, 60), count)
    prices = [p / 4 for p in rng.sample(range(2, 200), count)]
    body: list[list[Cell]] = [
        [item, qty, cost] for item, qty, cost in zip(rng.sample(ITEMS, count), qtys, prices, strict=True)
    ]
    col = rng.randrange(3)
    descending = rng.random() < 0.5
    while body in (sorted(body, key=lambda row: row[col]), sorted(body, key=lambda row: row[col], reverse=True)):
        rng.shuffle(body)  # never seeded already sorted either way
    rows: list[list[Cell]] = [list(COLUMNS), *body]
    order = "descending (largest first)" if descending else "ascending (smallest first)"
    if col == 0:
        order = "descending (Z to A)" if descending else "ascending (A to Z)"
    return cb.Task(
        description=f"The workbook ~/{path} is open in LibreOffice Calc. Sort the table's rows by {COLUMNS[col]}, "
        f"{order}, keeping the header on top and each row together, then save the workbook in its current format.",
        metadata={"path": path, "rows": rows, "col": col, "descending": descending},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def ordered(meta: Meta, col: int, descending: bool) -> list[list[Cell]]:
    return [meta["rows"][0], *sorted(meta["rows"][1:], key=lambda row: row[col], reverse=descending)]


async def sort(session: cb.Session, col: int, descending: bool) -> None:
    """The cursor in the column's first value, then Data > Sort Ascending or Sort Descending (Calc takes
    the whole table and sees its header)."""
    await goto(session, 1, col)
    await act(session, key("alt+d"))
    await act(session, *[key("down")] * (2 if descending else 1), key("Return"))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_book(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await scored(task, session, {SHEET: ordered(meta, meta["col"], meta["descending"])})]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await sort(session, task.metadata["col"], task.metadata["descending"])
    await save(session, task.metadata["path"])


@cb.wrong_way
async def sorted_the_other_way(task: cb.Task, session: cb.Session) -> None:
    """The right column, the opposite order."""
    await sort(session, task.metadata["col"], not task.metadata["descending"])
    await save(session, task.metadata["path"])


@cb.wrong_way
async def sorted_by_another_column(task: cb.Task, session: cb.Session) -> None:
    """The asked order, by the next column."""
    await sort(session, (task.metadata["col"] + 1) % 3, task.metadata["descending"])
    await save(session, task.metadata["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Sorted on screen, never saved."""
    await sort(session, task.metadata["col"], task.metadata["descending"])
