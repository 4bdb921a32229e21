"""multi-notes-to-calc: carry a list from a note open in Mousepad into a workbook open in LibreOffice Calc
(two apps: the note behind, the workbook in front) and save the workbook.

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``): the header,
then one row per line of the note in its order, the item as text and the count as a number; the note
itself unchanged, and no other file under home changed.
Wrong ways: ``counts_as_text`` (each count typed after an apostrophe), ``last_line_missing``,
``whole_lines_in_column_a`` (each ``item: count`` line typed into one cell) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt, scored, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_title, loaders, start, write_files
from cua_bench_tasks_desktop._office import book_bytes, open_document, save
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Cell

NAME = "multi-notes-to-calc"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    note = f"{folder}/{rng.choice(['counts', 'tally', 'stocktake'])}_{rng.randint(1, 99)}.txt"
    path = f"{folder}/{rng.choice(['stock', 'pantry', 'store'])}_{rng.randint(1, 99)}{rng.choice(['.ods', '.xlsx'])}"
    lines = [[item, rng.randint(0, 99)] for item in rng.sample(ITEMS, rng.randint(2, 6))]
    return cb.Task(
        description=f"The note ~/{note} (open in Mousepad, behind) lists stock counts as 'item: count' lines. Enter "
        f"them into the workbook ~/{path} open in LibreOffice Calc: one row per line under the header, the item in "
        "column A and the count in column B as a number, in the note's order; then save the workbook in its "
        "current format.",
        metadata={"path": path, "note": note, "lines": lines, "rows": [["item", "count"]]},
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def note_text(meta: Meta) -> str:
    return "".join(f"{item}: {count}\n" for item, count in meta["lines"])


def rows_typed(meta: Meta, lines: list[list[Cell]] | None = None, quote: str = "") -> str:
    return "\n".join(f"{item}\t{quote}{count}" for item, count in (meta["lines"] if lines is None else lines))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {meta["note"]: note_text(meta)})
    await start(session, "mousepad", meta["note"], title=file_title(meta["note"], "Mousepad"))
    await open_document(task, session, "calc", meta["path"], book_bytes({SHEET: meta["rows"]}, fmt(meta["path"])))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await scored(task, session, {SHEET: [*meta["rows"], *meta["lines"]]})]


async def _typed(task: cb.Task, session: cb.Session, text: str, *, saved: bool = True) -> None:
    await type_entries(session, [(1, 0, text)])
    if saved:
        await save(session, task.metadata["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _typed(task, session, rows_typed(task.metadata))


@cb.wrong_way
async def counts_as_text(task: cb.Task, session: cb.Session) -> None:
    """Each count typed after an apostrophe: the right digits, stored as text."""
    await _typed(task, session, rows_typed(task.metadata, quote="'"))


@cb.wrong_way
async def last_line_missing(task: cb.Task, session: cb.Session) -> None:
    """Every line of the note but the last."""
    await _typed(task, session, rows_typed(task.metadata, task.metadata["lines"][:-1]))


@cb.wrong_way
async def whole_lines_in_column_a(task: cb.Task, session: cb.Session) -> None:
    """Each line of the note typed whole into column A."""
    await _typed(task, session, note_text(task.metadata).rstrip("\n"))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The rows typed, never saved."""
    await _typed(task, session, rows_typed(task.metadata), saved=False)
