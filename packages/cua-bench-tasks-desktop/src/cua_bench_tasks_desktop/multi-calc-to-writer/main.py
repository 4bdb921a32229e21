"""multi-calc-to-writer: look up one item's count in a workbook open in LibreOffice Calc (behind) and
write it into a sentence added at the end of a document open in LibreOffice Writer (in front), then save
the document.

The workbook lists 5 to 8 ``item, count`` rows; the task names one item and gives the sentence with
its count left out (``We have N ITEM in stock.``). The oracle presses ctrl+end and Enter in Writer,
types the sentence with the count and saves (ctrl+s, ``_office.save``).

The evaluator reads the saved document in its name's format (``_writer.scored``: odfpy or
python-docx): every paragraph as it was, then the sentence with the item's count as one more body
paragraph with no marks, nothing else (no table or object); the workbook unchanged, and no other file
under home changed. The count is only in the workbook, so the sentence proves it was read there.
Wrong ways: ``the_row_below`` (the next row's count), ``never_saved`` and ``joined_to_the_last_paragraph``
(typed at the end of the last paragraph, no new paragraph).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, press, type_text
from cua_bench_tasks_desktop._multi import counts, in_front
from cua_bench_tasks_desktop._office import book_bytes, open_document, save
from cua_bench_tasks_desktop._sheets import SHEET
from cua_bench_tasks_desktop._writer import document_bytes, scored, seed_lines, writer_format

NAME = "multi-calc-to-writer"
WAIVED = OUTPUT_IS_THE_WORK
HEADER = ["item", "count"]


def build(rng: random.Random) -> cb.Task:
    rows = counts(rng, 5, 8)
    while len({value for _, value in rows}) < len(rows):
        rows = counts(rng, 5, 8)
    pick = rng.randrange(len(rows))
    folder = rng.choice(WORDS)
    path = f"{folder}/{file_name(rng, rng.choice(['.odt', '.docx']))}"
    book = f"{folder}/stock_{rng.randint(1, 99)}{rng.choice(['.ods', '.xlsx'])}"
    item = rows[pick][0]
    return cb.Task(
        description=f"The workbook ~/{book} (open in LibreOffice Calc, behind) lists stock counts. In the document "
        f"~/{path} open in LibreOffice Writer, add a new paragraph at the end of the document: 'We have N {item} in "
        f"stock.' with N the count the workbook gives for {item} (digits, no other text changed). Then save the "
        "document in its current format.",
        metadata={"path": path, "book": book, "rows": rows, "pick": pick, "lines": seed_lines(rng, rng.randint(2, 4))},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def sentence(meta: Meta, index: int | None = None) -> str:
    item = meta["rows"][meta["pick"]][0]
    count = meta["rows"][meta["pick"] if index is None else index][1]
    return f"We have {count} {item} in stock."


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_document(
        task, session, "calc", meta["book"], book_bytes({SHEET: [HEADER, *meta["rows"]]}, fmt(meta["book"]))
    )
    data = document_bytes(meta["lines"], writer_format(meta["path"]))
    await open_document(task, session, "writer", meta["path"], data)
    await in_front(session, "writer", meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await scored(task, session, [*meta["lines"], sentence(meta)])]


async def _append(session: cb.Session, text: str, *keys: str) -> None:
    """ctrl+end, then ``keys`` one by one (Writer can take a key of a batch before the move), then ``text``."""
    await press(session, "ctrl+end")
    for combo in keys:
        await press(session, combo)
    await type_text(session, text)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _append(session, sentence(meta), "enter")
    await save(session, meta["path"])


@cb.wrong_way
async def the_row_below(task: cb.Task, session: cb.Session) -> None:
    """The count of the row below the item's (the first row's, for the last)."""
    meta = task.metadata
    await _append(session, sentence(meta, (meta["pick"] + 1) % len(meta["rows"])), "enter")
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The sentence typed, never saved."""
    await _append(session, sentence(task.metadata), "enter")


@cb.wrong_way
async def joined_to_the_last_paragraph(task: cb.Task, session: cb.Session) -> None:
    """The sentence typed at the end of the last paragraph, after a space."""
    meta = task.metadata
    await _append(session, " " + sentence(meta))
    await save(session, meta["path"])
