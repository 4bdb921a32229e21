"""calc-percent-format: show one column's values of a table in LibreOffice Calc as percentages with one
decimal place (0.125 shown as 12.5%), and save the workbook in its own format (``.ods`` or ``.xlsx``).

The evaluator reads the saved workbook in its name's format: its cells with types, whole, equal to the
seed (``_calc.scored``: a format changes no value, so 0.125 stays the number 0.125, not the text
"12.5%" nor the number 12.5), and each number cell's format code (``_calc.number_formats``: openpyxl,
or odfpy through the cell, row and column styles to the data style): ``0.0%`` on every value of that
column, ``General`` on every other number, as seeded. The header's and empty cells' formats show
nothing and are not judged, so formatting the whole column is as good as its values.
The oracle selects the column's values (the first by the Name Box, then shift+down), runs Format > Number Format >
Percent (two decimals) from LibreOffice's Search Commands (Shift+Esc), clicks the Formatting toolbar's
Delete Decimal Place once, and saves.
Wrong ways: ``two_decimals`` (Percent alone: 12.50%), ``the_price_column`` (the right format
on the price column), ``the_last_value_missed`` (the selection one row short) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import (
    DELETE_DECIMAL,
    GENERAL,
    format_differences,
    goto,
    open_book,
    read_number_formats,
    scored,
)
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders, press
from cua_bench_tasks_desktop._office import app_title, click_in, save, search_command
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Cell

NAME = "calc-percent-format"
WAIVED = OUTPUT_IS_THE_WORK
RATES = ("discount", "margin", "share", "growth", "tax", "markup")
PERCENT = "0.0%"


def build(rng: random.Random) -> cb.Task:
    ext = rng.choice([".ods", ".xlsx"])
    path = f"{rng.choice(WORDS)}/{rng.choice(['stock', 'orders', 'pantry', 'prices'])}_{rng.randint(1, 99)}{ext}"
    rate = rng.choice(RATES)
    header: list[Cell] = ["item", "qty", "price"]
    col = rng.randint(1, 3)
    header.insert(col, rate)
    rows: list[list[Cell]] = [header]
    for item in rng.sample(ITEMS, rng.randint(3, 7)):
        row: list[Cell] = [item, rng.randint(1, 60), rng.randint(2, 80) / 4]
        row.insert(col, rng.randint(1, 199) / 200)  # 0.5% to 99.5%: one decimal shows it exactly
        rows.append(row)
    return cb.Task(
        description=f"The workbook ~/{path} is open in LibreOffice Calc. Format the values of the {rate} column as "
        "percentages with exactly one decimal place (0.125 should show as 12.5%), without changing the values "
        "themselves, then save the workbook in its current format.",
        metadata={"path": path, "rows": rows, "col": col},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def number_cells(meta: Meta) -> list[tuple[int, int]]:
    return [(r, c) for r, row in enumerate(meta["rows"]) for c, v in enumerate(row) if isinstance(v, int | float)]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_book(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    wanted = {(r, c): PERCENT if c == meta["col"] else GENERAL for r, c in number_cells(meta)}
    wrong = format_differences(await read_number_formats(session, meta["path"], wanted), wanted)
    for line in wrong:
        task.explain(f"{meta['path']}: {line}")
    right = await scored(task, session, {SHEET: meta["rows"]})
    return [right if not wrong else 0.0]


async def formatted(session: cb.Session, meta: Meta, col: int, short: int = 0, decimals: bool = True) -> None:
    """Rows 2 to the last (but ``short``) of ``col`` selected, Format > Number Format > Percent (two
    decimals), then the toolbar's Delete Decimal Place."""
    await goto(session, 1, col)
    for _ in range(len(meta["rows"]) - 2 - short):
        await press(session, "shift+down")
    await search_command(session, "Percent")
    if decimals:
        await click_in(session, app_title(meta["path"], "calc"), DELETE_DECIMAL, quiet=0.4)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await formatted(session, task.metadata, task.metadata["col"])
    await save(session, task.metadata["path"])


@cb.wrong_way
async def two_decimals(task: cb.Task, session: cb.Session) -> None:
    """Format as Percent alone: the right cells shown with two decimals (12.50%)."""
    await formatted(session, task.metadata, task.metadata["col"], decimals=False)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def the_price_column(task: cb.Task, session: cb.Session) -> None:
    """The right format, on the price column."""
    await formatted(session, task.metadata, task.metadata["rows"][0].index("price"))
    await save(session, task.metadata["path"])


@cb.wrong_way
async def the_last_value_missed(task: cb.Task, session: cb.Session) -> None:
    """The selection stops one row short: the last value keeps the General format."""
    await formatted(session, task.metadata, task.metadata["col"], short=1)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Formatted on screen, never saved."""
    await formatted(session, task.metadata, task.metadata["col"])
