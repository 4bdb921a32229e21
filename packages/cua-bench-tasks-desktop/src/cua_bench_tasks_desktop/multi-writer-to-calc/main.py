"""multi-writer-to-calc: carry one section's list from a document open in LibreOffice Writer (behind) into
a workbook open in LibreOffice Calc (in front), and save the workbook.

The document has a title, a sentence, and two Heading 2 sections (two rooms of a stock report), each of
3 to 5 ``item: count`` paragraphs; the task names one section. The oracle types that section's rows
from A2 (item, Tab, count, Enter: ``_calc.type_entries``) and saves (ctrl+s, ``_office.save``).

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``: odfpy or
openpyxl): the header, then one row per line of the section in its order, the item as text and the
count as a number, nothing else; the document unchanged, and no other file under home changed.
Wrong ways: ``the_other_section``, ``counts_as_text`` (each count after an apostrophe),
``whole_lines_in_column_a`` (each ``item: count`` line in one cell) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt, scored, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._multi import counts, entries, in_front
from cua_bench_tasks_desktop._office import book_bytes, open_document, save
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Want
from cua_bench_tasks_desktop._writer import body_line, document_bytes, writer_format

NAME = "multi-writer-to-calc"
WAIVED = OUTPUT_IS_THE_WORK
ROOMS = ("Kitchen", "Cellar", "Pantry", "Garage", "Shed", "Attic", "Office")
HEADER = ["item", "count"]


def build(rng: random.Random) -> cb.Task:
    rooms = rng.sample(ROOMS, 2)
    items = rng.sample(ITEMS, 10)
    sections = [counts(rng, 3, 5) for _ in rooms]
    for section, some in zip(sections, (items[:5], items[5:]), strict=True):
        for row, item in zip(section, some, strict=False):
            row[0] = item
    pick = rng.randrange(2)
    folder = rng.choice(WORDS)
    document = f"{folder}/stock_report_{rng.randint(1, 99)}{rng.choice(['.odt', '.docx'])}"
    path = f"{folder}/{rooms[pick].lower()}_{rng.randint(1, 99)}{rng.choice(['.ods', '.xlsx'])}"
    return cb.Task(
        description=f"The document ~/{document} (open in LibreOffice Writer, behind) lists stock as 'item: count' "
        f"lines under two headings. In the workbook ~/{path} open in LibreOffice Calc, enter the lines under the "
        f"heading '{rooms[pick]}': one row per line under the header, the item in column A and the count in column "
        "B as a number, in the document's order. Then save the workbook in its current format.",
        metadata={
            "path": path,
            "document": document,
            "rooms": rooms,
            "sections": sections,
            "pick": pick,
            "intro": body_line(rng),
        },
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def document_lines(meta: Meta) -> list[str]:
    found = ["# Stock report", meta["intro"]]
    for room, section in zip(meta["rooms"], meta["sections"], strict=True):
        found += [f"## {room}", *(f"{item}: {value}" for item, value in section)]
    return found


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    data = document_bytes(document_lines(meta), writer_format(meta["document"]))
    await open_document(task, session, "writer", meta["document"], data)
    await open_document(task, session, "calc", meta["path"], book_bytes({SHEET: [HEADER]}, fmt(meta["path"])))
    await in_front(session, "calc", meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    rows: list[list[Want]] = [[*HEADER], *([item, value] for item, value in meta["sections"][meta["pick"]])]
    return [await scored(task, session, {SHEET: rows})]


async def _typed(task: cb.Task, session: cb.Session, text: str, *, saved: bool = True) -> None:
    await type_entries(session, [(1, 0, text)])
    if saved:
        await save(session, task.metadata["path"])


def _rows(meta: Meta, other: bool = False) -> list[list[str | int]]:
    return list(meta["sections"][1 - meta["pick"] if other else meta["pick"]])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _typed(task, session, entries(_rows(task.metadata)))


@cb.wrong_way
async def the_other_section(task: cb.Task, session: cb.Session) -> None:
    """The other heading's lines."""
    await _typed(task, session, entries(_rows(task.metadata, other=True)))


@cb.wrong_way
async def counts_as_text(task: cb.Task, session: cb.Session) -> None:
    """Each count typed after an apostrophe: the right digits, stored as text."""
    await _typed(task, session, entries(_rows(task.metadata), quote="'"))


@cb.wrong_way
async def whole_lines_in_column_a(task: cb.Task, session: cb.Session) -> None:
    """Each 'item: count' line typed into one cell of column A."""
    await _typed(task, session, "\n".join(f"{item}: {value}" for item, value in _rows(task.metadata)))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The rows typed, never saved."""
    await _typed(task, session, entries(_rows(task.metadata)), saved=False)
