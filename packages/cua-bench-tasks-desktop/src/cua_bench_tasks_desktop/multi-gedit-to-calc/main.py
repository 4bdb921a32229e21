"""multi-gedit-to-calc: carry a price list from a note open in gedit into a workbook open in LibreOffice Calc
(two apps: the note behind, the workbook in front) and save the workbook.

The oracle types the rows into the workbook from A2 (item, Tab, price, Enter: ``_calc.type_entries``)
and saves it in its own format (``_office.save``): Calc's widgets are not on the accessibility bus, so
it acts through keys, as the other LibreOffice tasks do.

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``): the header,
then one row per line of the note in its order, the item as text and the price as a number (with its
cents); the note unchanged, and no other file under home changed.
Wrong ways: ``prices_as_text`` (each price typed after an apostrophe), ``first_line_missing`` and
``cents_dropped`` (each price rounded down to whole units).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt, scored, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._gedit import open_in_gedit
from cua_bench_tasks_desktop._office import book_bytes, open_document, save
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET

NAME = "multi-gedit-to-calc"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    note = f"{folder}/{rng.choice(['prices', 'quote', 'menu'])}_{rng.randint(1, 99)}.txt"
    path = f"{folder}/{rng.choice(['costs', 'budget', 'sheet'])}_{rng.randint(1, 99)}{rng.choice(['.ods', '.xlsx'])}"
    lines = [[item, rng.randint(100, 9999) / 100] for item in rng.sample(ITEMS, rng.randint(2, 6))]
    for line in lines:
        if line[1] == int(line[1]):
            line[1] += 0.25  # every price has cents: dropping them must show
    return cb.Task(
        description=f"The note ~/{note} (open in gedit, behind) lists prices as 'item: price' lines. Enter them into "
        f"the workbook ~/{path} open in LibreOffice Calc: one row per line under the header, the item in column A "
        "and the price in column B as a number, in the note's order; then save the workbook in its current format.",
        metadata={"path": path, "note": note, "lines": lines, "rows": [["item", "price"]]},
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def note_text(meta: Meta) -> str:
    return "".join(f"{item}: {price:.2f}\n" for item, price in meta["lines"])


def rows_typed(meta: Meta, lines: list[list[object]] | None = None, quote: str = "", cents: bool = True) -> str:
    rows = meta["lines"] if lines is None else lines
    return "\n".join(f"{item}\t{quote}{price:.2f}" if cents else f"{item}\t{int(price)}" for item, price in rows)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_gedit(task, session, {meta["note"]: note_text(meta)}, meta["note"])
    await open_document(task, session, "calc", meta["path"], book_bytes({SHEET: meta["rows"]}, fmt(meta["path"])))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await scored(task, session, {SHEET: [*meta["rows"], *meta["lines"]]})]


async def _typed(task: cb.Task, session: cb.Session, text: str) -> None:
    await type_entries(session, [(1, 0, text)])
    await save(session, task.metadata["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _typed(task, session, rows_typed(task.metadata))


@cb.wrong_way
async def prices_as_text(task: cb.Task, session: cb.Session) -> None:
    """Each price typed after an apostrophe: the right digits, stored as text."""
    await _typed(task, session, rows_typed(task.metadata, quote="'"))


@cb.wrong_way
async def first_line_missing(task: cb.Task, session: cb.Session) -> None:
    """Every line of the note but the first."""
    await _typed(task, session, rows_typed(task.metadata, task.metadata["lines"][1:]))


@cb.wrong_way
async def cents_dropped(task: cb.Task, session: cb.Session) -> None:
    """Each price rounded down to whole units."""
    await _typed(task, session, rows_typed(task.metadata, cents=False))
