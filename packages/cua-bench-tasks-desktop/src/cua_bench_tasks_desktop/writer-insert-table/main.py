"""writer-insert-table: insert a table of a given number of columns and rows at the end of a document
open in LibreOffice Writer, type given header words into its first row (by variant: some variants ask
for an empty table), and save the document in its own format (``.odt`` or ``.docx``, by variant).

The evaluator reads the saved document in the format its name asks for (``_writer.scored`` with the
table expected, ``_writer.table_differences``; odfpy or python-docx): every paragraph's text, style,
level and marks as they were, exactly one table, after the last paragraph, of that many rows and
columns (no merged cells, no table in a cell), its first row holding the header words left to right
and every other cell empty, nothing else added, and no other file under home changed. The formatting
inside the cells is not judged (the dialog's Heading option and table style are the agent's choice).
The oracle presses ctrl+end, opens Table > Insert Table (ctrl+F12), fills the dialog's Columns and
Rows fields (Tab from its Name field), presses Insert (Enter), types the header words with Tab between
cells and saves with ctrl+s.
Wrong ways: ``rows_and_columns_swapped``, ``inserted_at_the_start`` (the table before the title) and
``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, press
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._writer import VOCABULARY, Table, insert_table, open_writer, scored, seed_lines

NAME = "writer-insert-table"
WAIVED = OUTPUT_IS_THE_WORK
HEADERS = (
    "Name", "Owner", "Date", "Status", "Budget", "Notes", "Region", "Cost", "Phase", "Score", "Team", "Due",
)  # fmt: skip


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.odt', '.docx']))}"
    lines = seed_lines(rng, rng.randint(2, 4))
    rows, columns = rng.sample(range(2, 6), 2)  # never square: swapped sizes must differ
    # Header words no word of the text starts with, so Writer's word completion never offers one.
    usable = [h for h in HEADERS if not any(w.startswith(h.lower()) for w in VOCABULARY)]
    headers = rng.sample(usable, columns) if rng.random() < 0.75 else []
    ask = (
        f"then type the headers {', '.join(headers)} into the cells of its first row, left to right, leaving the "
        "other cells empty, "
        if headers
        else "leave all its cells empty, "
    )
    return cb.Task(
        description=f"The document ~/{path} is open in LibreOffice Writer. Insert a table with {columns} columns and "
        f"{rows} rows at the end of the document, after the last paragraph; {ask}and save the document in its "
        "current format.",
        metadata={"path": path, "lines": lines, "rows": rows, "columns": columns, "headers": headers},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: Meta) -> Table:
    headers = meta["headers"] or [""] * meta["columns"]
    blank = ("",) * meta["columns"]
    return Table(len(meta["lines"]), (tuple(headers), *[blank] * (meta["rows"] - 1)))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_writer(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, task.metadata["lines"], tables=[expected(task.metadata)])]


async def inserted(session: cb.Session, meta: Meta, rows: int, columns: int, where: str = "ctrl+end") -> None:
    """The caret moved with ``where``, a table of ``rows`` by ``columns`` inserted, the header words typed."""
    await press(session, where)
    await insert_table(session, meta["path"], rows, columns, meta["headers"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await inserted(session, meta, meta["rows"], meta["columns"])
    await save(session, meta["path"])


@cb.wrong_way
async def rows_and_columns_swapped(task: cb.Task, session: cb.Session) -> None:
    """The dialog's Columns given the rows asked and Rows the columns; the header words typed along its first row."""
    meta = task.metadata
    await press(session, "ctrl+end")
    await insert_table(session, meta["path"], meta["columns"], meta["rows"], meta["headers"][: meta["rows"]])
    await save(session, meta["path"])


@cb.wrong_way
async def inserted_at_the_start(task: cb.Task, session: cb.Session) -> None:
    """The right table, inserted with the caret at the start of the document (ctrl+home): before the title."""
    meta = task.metadata
    await inserted(session, meta, meta["rows"], meta["columns"], where="ctrl+home")
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The table inserted and filled on screen, never saved."""
    meta = task.metadata
    await inserted(session, meta, meta["rows"], meta["columns"])
