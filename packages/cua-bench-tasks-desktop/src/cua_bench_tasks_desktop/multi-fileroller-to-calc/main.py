"""multi-fileroller-to-calc: carry a CSV file that is inside an archive shown in File Roller (behind) into a
workbook open in LibreOffice Calc (in front), add a total row with a SUM formula, and save the workbook.

The archive (``.zip`` or ``.tar.gz`` in ``~/Downloads``) holds two CSV files of ``item,count`` rows and a
note; the task names one CSV. A person opens it from File Roller (a double-click opens it in its app)
or extracts it, and types or pastes its rows into the workbook. The oracle types the CSV's rows from A2
(item, Tab, count, Enter), then ``total`` and ``=SUM(B2:Bn)`` on the row below them, and saves (ctrl+s);
it acts through keys, as the other Calc oracles do, since Calc's widgets are not on the bus here.

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``: odfpy or
openpyxl): the header, the CSV's rows in its order (the item as text, the count as a number), then
``total`` and a SUM formula over exactly the counts with their sum, nothing else; the archive and every
other file under home unchanged: the instruction says to add none, so an extracted copy left under home
is a change (File Roller opens a member from a temporary ``.fr-`` folder in ``~/.cache`` or ``/tmp``, whichever
has more free space, and neither counts).
Wrong ways: ``the_other_csv``, ``total_typed_as_a_number`` (the sum's value typed, not a formula) and
``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._archive import archive_bytes, archive_title
from cua_bench_tasks_desktop._calc import fmt, scored, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders, sentence, start
from cua_bench_tasks_desktop._multi import as_csv, counts, entries, with_total
from cua_bench_tasks_desktop._office import book_bytes, open_document, save
from cua_bench_tasks_desktop._sheets import SHEET

NAME = "multi-fileroller-to-calc"
WAIVED = OUTPUT_IS_THE_WORK
HEADER = ["item", "count"]
NAMES = ("stock", "orders", "sales", "returns", "deliveries")


def build(rng: random.Random) -> cb.Task:
    names = [f"{name}_{rng.randint(1, 12):02d}.csv" for name in rng.sample(NAMES, 2)]
    tables = [counts(rng), counts(rng)]
    members = {name: as_csv(HEADER, table) for name, table in zip(names, tables, strict=True)}
    members["readme.txt"] = sentence(rng) + "\n"
    stem = f"{rng.choice(WORDS)}-{rng.randint(1, 99)}"
    archive = f"{stem}{rng.choice(['.zip', '.tar.gz'])}"
    path = f"{rng.choice(WORDS)}/{rng.choice(['summary', 'totals', 'tally'])}_{rng.randint(1, 99)}"
    path += rng.choice([".ods", ".xlsx"])
    return cb.Task(
        description=f"File Roller (behind) shows the archive ~/Downloads/{archive}. In the workbook ~/{path} open in "
        f"LibreOffice Calc, enter the rows of the archive's file {names[0]} under the header (item in column A, "
        "count in column B as a number, in the file's order), then on the row right below them put the text "
        "'total' in column A and a SUM formula adding up the counts in column B. Save the workbook in its current "
        "format. Leave the archive as it is and add no other file under your home folder (open the file from File "
        "Roller, or extract it under /tmp).",
        metadata={"path": path, "archive": archive, "members": members, "tables": tables},
        max_steps=30,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    archive = meta["archive"]
    await session.run_command("mkdir -p Downloads", timeout=20, check=True)
    kind = "zip" if archive.endswith(".zip") else "tar.gz"
    await session.write_bytes(f"Downloads/{archive}", archive_bytes(kind, meta["members"]))
    await start(session, "file-roller", f"Downloads/{archive}", title=archive_title(archive))
    await open_document(task, session, "calc", meta["path"], book_bytes({SHEET: [HEADER]}, fmt(meta["path"])))


def _rows(meta: Meta, index: int = 0) -> list[list[str | int]]:
    return [list(row) for row in meta["tables"][index]]


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, {SHEET: with_total(HEADER, _rows(task.metadata))})]


async def _typed(task: cb.Task, session: cb.Session, text: str, *, saved: bool = True) -> None:
    await type_entries(session, [(1, 0, text)])
    if saved:
        await save(session, task.metadata["path"])


def _total(rows: list[list[str | int]]) -> str:
    return f"total\t=SUM(B2:B{len(rows) + 1})"


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    rows = _rows(task.metadata)
    await _typed(task, session, entries(rows, total=_total(rows)))


@cb.wrong_way
async def the_other_csv(task: cb.Task, session: cb.Session) -> None:
    """The archive's other CSV carried, with its total."""
    rows = _rows(task.metadata, 1)
    await _typed(task, session, entries(rows, total=_total(rows)))


@cb.wrong_way
async def total_typed_as_a_number(task: cb.Task, session: cb.Session) -> None:
    """The rows, and the sum worked out and typed as a number."""
    rows = _rows(task.metadata)
    await _typed(task, session, entries(rows, total=f"total\t{sum(int(row[1]) for row in rows)}"))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The rows and the total typed, never saved."""
    rows = _rows(task.metadata)
    await _typed(task, session, entries(rows, total=_total(rows)), saved=False)
