"""multi-calc-to-notes: read a workbook open in LibreOffice Calc and write what it says into a note open
in Mousepad (two apps: the workbook behind, the note in front), then save the note.

The evaluator checks the note's whole saved text (``saved_text_is``): its first line as it was, then
the items whose count is below the limit, one per line, in the workbook's order; the workbook
unchanged, and no other file under home changed. Each variant has an item exactly at the limit.
Wrong ways: ``at_the_limit_too`` (the items at the limit as well), ``sorted_by_name`` (the right items
in alphabetical order) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    file_title,
    key,
    loaders,
    remember_files,
    save_and_wait,
    saved_text_is,
    start,
    write_files,
)
from cua_bench_tasks_desktop._office import book_bytes, open_document
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET
from cua_core import TypeText

NAME = "multi-calc-to-notes"
WAIVED = OUTPUT_IS_THE_WORK
HEADER = "to reorder:\n"


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    book = f"{folder}/{rng.choice(['stock', 'pantry', 'store'])}_{rng.randint(1, 99)}{rng.choice(['.ods', '.xlsx'])}"
    path = f"{folder}/{rng.choice(['reorder', 'shopping', 'todo'])}_{rng.randint(1, 99)}.txt"
    limit = rng.randint(5, 20)
    items = rng.sample(ITEMS, rng.randint(4, 8))
    while True:  # an item at the limit, and at least two below it out of alphabetical order
        counts = [limit, *(rng.randint(0, 2 * limit) for _ in items[1:])]
        rng.shuffle(counts)
        below = [item for item, count in zip(items, counts, strict=True) if count < limit]
        if len(below) >= 2 and below != sorted(below):
            break
    rows = [["item", "count"], *([item, count] for item, count in zip(items, counts, strict=True))]
    return cb.Task(
        description=f"The workbook ~/{book} is open in LibreOffice Calc (behind), and the note ~/{path} in Mousepad. "
        f"Under the note's first line, write the name of every item whose count is below {limit}, one per line, in "
        "the workbook's order; then save the note.",
        metadata={"path": path, "book": book, "rows": rows, "limit": limit},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def names(meta: Meta, *, at_limit: bool = False, by_name: bool = False) -> list[str]:
    found = [item for item, count in meta["rows"][1:] if count < meta["limit"] or (at_limit and count == meta["limit"])]
    return sorted(found) if by_name else found


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_document(task, session, "calc", meta["book"], book_bytes({SHEET: meta["rows"]}, fmt(meta["book"])))
    await write_files(session, {meta["path"]: HEADER})
    await start(session, "mousepad", meta["path"], title=file_title(meta["path"], "Mousepad"))
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await saved_text_is(task, session, HEADER + "".join(f"{name}\n" for name in names(task.metadata)))


async def _write(task: cb.Task, session: cb.Session, lines: list[str], *, saved: bool = True) -> None:
    await act(session, key("ctrl+end"), TypeText("".join(f"{line}\n" for line in lines)))
    if saved:
        await save_and_wait(session, task.metadata["path"], "Mousepad")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _write(task, session, names(task.metadata))


@cb.wrong_way
async def at_the_limit_too(task: cb.Task, session: cb.Session) -> None:
    """The items at the limit as well as below it."""
    await _write(task, session, names(task.metadata, at_limit=True))


@cb.wrong_way
async def sorted_by_name(task: cb.Task, session: cb.Session) -> None:
    """The right items, in alphabetical order."""
    await _write(task, session, names(task.metadata, by_name=True))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The names typed, never saved."""
    await _write(task, session, names(task.metadata), saved=False)
