"""multi-folder-to-calc: list the files a folder holds (shown in PCManFM, behind) in a workbook open in
LibreOffice Calc, in alphabetical order, and save the workbook.

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``): the header,
then one name per row in column A, every file of the folder once, sorted; the folder untouched, and no
other file under home changed.
Wrong ways: ``in_the_order_they_were_made`` (every name, unsorted), ``one_name_missing``,
``names_without_extensions`` and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt, scored, type_entries
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    distinct,
    file_name,
    loaders,
    sentence,
    start,
    write_files,
)
from cua_bench_tasks_desktop._office import book_bytes, open_document, save
from cua_bench_tasks_desktop._sheets import SHEET

NAME = "multi-folder-to-calc"
WAIVED = OUTPUT_IS_THE_WORK
FOLDERS = ("Documents", "Projects", "Reports", "Archive", "Inbox")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    while True:
        names = distinct(rng, rng.randint(3, 6), lambda r: file_name(r, r.choice([".txt", ".md", ".csv", ".log"])))
        stems = [name.rsplit(".", 1)[0] for name in names]
        if names != sorted(names) and len(set(stems)) == len(stems):
            break
    path = f"{rng.choice(WORDS)}_{rng.randint(1, 99)}{rng.choice(['.ods', '.xlsx'])}"
    return cb.Task(
        description=f"The file manager (behind) shows ~/{folder}. In the workbook ~/{path} open in LibreOffice Calc, "
        "list the name of every file in that folder (with its extension) in column A under the header, one per "
        "row, in alphabetical order; then save the workbook in its current format.",
        metadata={
            "path": path,
            "folder": folder,
            "names": names,
            "files": {f"{folder}/{name}": sentence(rng) + "\n" for name in names},
            "rows": [["file"]],
        },
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


async def _typed(task: cb.Task, session: cb.Session, names: list[str], *, saved: bool = True) -> None:
    await type_entries(session, [(1, 0, "\n".join(names))])
    if saved:
        await save(session, task.metadata["path"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, meta["files"])
    await start(session, "pcmanfm", meta["folder"], title=meta["folder"])
    await open_document(task, session, "calc", meta["path"], book_bytes({SHEET: meta["rows"]}, fmt(meta["path"])))


def listed(meta: Meta) -> list[list[str]]:
    return [*meta["rows"], *([name] for name in sorted(meta["names"]))]


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, {SHEET: listed(task.metadata)})]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _typed(task, session, sorted(task.metadata["names"]))


@cb.wrong_way
async def in_the_order_they_were_made(task: cb.Task, session: cb.Session) -> None:
    """Every name, in the order setup made them (not sorted)."""
    await _typed(task, session, task.metadata["names"])


@cb.wrong_way
async def one_name_missing(task: cb.Task, session: cb.Session) -> None:
    """Sorted, the last name left out."""
    await _typed(task, session, sorted(task.metadata["names"])[:-1])


@cb.wrong_way
async def names_without_extensions(task: cb.Task, session: cb.Session) -> None:
    """Sorted, each name without its extension."""
    await _typed(task, session, sorted(name.rsplit(".", 1)[0] for name in task.metadata["names"]))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The names typed, never saved."""
    await _typed(task, session, sorted(task.metadata["names"]), saved=False)
