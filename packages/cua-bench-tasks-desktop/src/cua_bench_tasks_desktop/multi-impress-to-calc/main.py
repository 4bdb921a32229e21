"""multi-impress-to-calc: carry the bullet lines of one slide of a presentation open in LibreOffice Impress
(behind) into a workbook open in LibreOffice Calc (in front), as rows, and save the workbook.

The presentation has 3 to 5 Title, Content slides; two of them list ``item: count`` bullets (two teams'
tallies), the rest ordinary lines. The task names one of the two slides by its title. The oracle types
that slide's rows from A2 (item, Tab, count, Enter: ``_calc.type_entries``) and saves (ctrl+s,
``_office.save``), through keys as the other Calc oracles do.

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``: odfpy or
openpyxl): the header, then one row per bullet of that slide in its order, the item as text and the
count as a number, nothing else; the presentation unchanged, and no other file under home changed.
Wrong ways: ``the_other_slide`` (the other tally), ``counts_as_text`` (each count after an apostrophe)
and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt, scored, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._impress import deck_bytes, seed_deck, slides_of
from cua_bench_tasks_desktop._impress import fmt as deck_format
from cua_bench_tasks_desktop._multi import counts, entries, in_front
from cua_bench_tasks_desktop._office import book_bytes, open_document, save
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Want

NAME = "multi-impress-to-calc"
WAIVED = OUTPUT_IS_THE_WORK
HEADER = ["item", "count"]


def build(rng: random.Random) -> cb.Task:
    path, slides, _ = seed_deck(rng, rng.randint(3, 5))
    tallies = rng.sample(range(len(slides)), 2)
    items = rng.sample(ITEMS, 10)
    tables = [counts(rng, 3, 5), counts(rng, 3, 5)]
    for table, some in zip(tables, (items[:5], items[5:]), strict=True):
        for row, item in zip(table, some, strict=False):
            row[0] = item
    for index, table in zip(tallies, tables, strict=True):
        slides[index]["body"] = [f"{item}: {value}" for item, value in table]
    book = f"{path.split('/')[0]}/tally_{rng.randint(1, 99)}{rng.choice(['.ods', '.xlsx'])}"
    return cb.Task(
        description=f"The presentation ~/{path} is open in LibreOffice Impress (behind). The slide titled "
        f"\"{slides[tallies[0]]['title']}\" lists counts as 'item: count' bullet lines. In the workbook ~/{book} open "
        "in LibreOffice Calc, enter that slide's lines under the header: one row per line, the item in column A and "
        "the count in column B as a number, in the slide's order. Then save the workbook in its current format.",
        metadata={"path": book, "deck": path, "slides": slides, "tallies": tallies, "tables": tables},
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_document(
        task, session, "impress", meta["deck"], deck_bytes(slides_of(meta["slides"]), deck_format(meta["deck"]))
    )
    await open_document(task, session, "calc", meta["path"], book_bytes({SHEET: [HEADER]}, fmt(meta["path"])))
    await in_front(session, "calc", meta["path"])


def _rows(meta: Meta, index: int = 0) -> list[list[str | int]]:
    return [list(row) for row in meta["tables"][index]]


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    rows: list[list[Want]] = [[*HEADER], *([item, value] for item, value in task.metadata["tables"][0])]
    return [await scored(task, session, {SHEET: rows})]


async def _typed(task: cb.Task, session: cb.Session, text: str, *, saved: bool = True) -> None:
    await type_entries(session, [(1, 0, text)])
    if saved:
        await save(session, task.metadata["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _typed(task, session, entries(_rows(task.metadata)))


@cb.wrong_way
async def the_other_slide(task: cb.Task, session: cb.Session) -> None:
    """The other slide's tally."""
    await _typed(task, session, entries(_rows(task.metadata, 1)))


@cb.wrong_way
async def counts_as_text(task: cb.Task, session: cb.Session) -> None:
    """Each count typed after an apostrophe: the right digits, stored as text."""
    await _typed(task, session, entries(_rows(task.metadata), quote="'"))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The rows typed, never saved."""
    await _typed(task, session, entries(_rows(task.metadata)), saved=False)
