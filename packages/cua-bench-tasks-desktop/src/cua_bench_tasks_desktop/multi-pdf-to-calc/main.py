"""multi-pdf-to-calc: carry a table of counts from a PDF open in Evince into a workbook open in
LibreOffice Calc (two apps: the PDF behind, the workbook in front) and save the workbook.

The PDF has two pages of ``item: count`` lines, last week's and this week's; the task asks for one
of them. The oracle types that page's rows from A2 (item, tab, count, Enter) and saves (ctrl+s).
The evaluator reads the saved workbook in its name's format with types (``_calc.scored``): the
header, then one row per line of the asked page in its order, the item as text and the count as a
number; the PDF unchanged, and no other file under home changed.
Wrong ways: ``the_other_page`` (the other week's counts), ``counts_as_text`` (each count after an
apostrophe), ``last_line_missing`` and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt, scored, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._evince import open_pdf, pdf_bytes
from cua_bench_tasks_desktop._office import book_bytes, open_document, save
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET

NAME = "multi-pdf-to-calc"
WAIVED = OUTPUT_IS_THE_WORK
WEEKS = ("Stock count, last week", "Stock count, this week")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    pdf = f"{folder}/{rng.choice(['stocktake', 'counts', 'audit'])}_{rng.randint(1, 99)}.pdf"
    path = f"{folder}/{rng.choice(['stock', 'pantry', 'store'])}_{rng.randint(1, 99)}{rng.choice(['.ods', '.xlsx'])}"
    items = rng.sample(ITEMS, rng.randint(3, 7))
    weeks = [[[item, rng.randint(0, 99)] for item in items] for _ in WEEKS]
    while weeks[1] == weeks[0]:
        weeks[1] = [[item, rng.randint(0, 99)] for item in items]
    page = rng.randrange(2)
    return cb.Task(
        description=f"The PDF ~/{pdf} (open in Evince, behind) lists stock counts as 'item: count' lines, last "
        f"week's on page 1 and this week's on page 2. Enter {'last' if page == 0 else 'this'} week's counts into "
        f"the workbook ~/{path} open in LibreOffice Calc: one row per line under the header, the item in column A "
        "and the count in column B as a number, in the PDF's order; then save the workbook in its current format.",
        metadata={"path": path, "pdf": pdf, "weeks": weeks, "page": page, "rows": [["item", "count"]]},
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def rows_typed(lines: list[list[str | int]], quote: str = "") -> str:
    return "\n".join(f"{item}\t{quote}{count}" for item, count in lines)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    pages = [
        (heading, [f"{item}: {count}" for item, count in week])
        for heading, week in zip(WEEKS, meta["weeks"], strict=True)
    ]
    await open_pdf(task, session, meta["pdf"], pdf_bytes(pages), remember=False, maximise=False)
    await open_document(task, session, "calc", meta["path"], book_bytes({SHEET: meta["rows"]}, fmt(meta["path"])))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await scored(task, session, {SHEET: [*meta["rows"], *meta["weeks"][meta["page"]]]})]


async def _typed(task: cb.Task, session: cb.Session, text: str, *, saved: bool = True) -> None:
    await type_entries(session, [(1, 0, text)])
    if saved:
        await save(session, task.metadata["path"])


def _lines(meta: Meta, other: bool = False) -> list[list[str | int]]:
    return list(meta["weeks"][1 - meta["page"] if other else meta["page"]])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _typed(task, session, rows_typed(_lines(task.metadata)))


@cb.wrong_way
async def the_other_page(task: cb.Task, session: cb.Session) -> None:
    """The other week's counts (the other page of the PDF)."""
    await _typed(task, session, rows_typed(_lines(task.metadata, other=True)))


@cb.wrong_way
async def counts_as_text(task: cb.Task, session: cb.Session) -> None:
    """Each count typed after an apostrophe: the right digits, stored as text."""
    await _typed(task, session, rows_typed(_lines(task.metadata), quote="'"))


@cb.wrong_way
async def last_line_missing(task: cb.Task, session: cb.Session) -> None:
    """Every line of the page but the last."""
    await _typed(task, session, rows_typed(_lines(task.metadata)[:-1]))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The rows typed, never saved."""
    await _typed(task, session, rows_typed(_lines(task.metadata)), saved=False)
