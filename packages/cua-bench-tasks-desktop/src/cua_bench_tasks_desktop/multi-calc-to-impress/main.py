"""multi-calc-to-impress: carry a table from a workbook open in LibreOffice Calc (behind) onto a slide of
a presentation open in LibreOffice Impress (in front), one bullet line per row, and save the presentation.

The workbook holds a header and 3 to 5 ``item, count`` rows; the presentation 3 to 5 Title, Content
slides. The task names a slide by its title and asks for its bullet lines to be replaced by the
workbook's rows as ``item: count`` lines, in the workbook's order.
The oracle shows the slide (``_impress.to_slide``), edits its body box (``_impress.edit_box``: Tab Tab,
Enter, ctrl+a, the lines typed with Enter between them) and saves with ctrl+s (``_office.save``); as
the other Impress oracles, it acts through keys, since LibreOffice's widgets are not on the bus here.

The evaluator reads the saved presentation in the format its name asks for (``_impress.scored``,
odfpy or python-pptx): every slide as it was (layout, title, bullets, notes, visibility, no other
shape), but that slide's body, which holds exactly the lines; the workbook unchanged, and no other
file under home changed. Pasting the cells as a table is a shape besides the placeholders: not asked.
Wrong ways: ``never_saved``, ``edits_the_next_slide`` (the lines on the slide after, or before the
last), ``last_row_missing`` and ``added_below_the_old_lines`` (the old bullets kept, the lines after them).
"""

from __future__ import annotations

import dataclasses
import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt as book_format
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._impress import (
    Slide,
    deck_bytes,
    edit_box,
    neighbour,
    scored,
    seed_deck,
    slides_of,
    to_slide,
)
from cua_bench_tasks_desktop._impress import fmt as deck_format
from cua_bench_tasks_desktop._multi import counts, in_front
from cua_bench_tasks_desktop._office import book_bytes, open_document, save
from cua_bench_tasks_desktop._sheets import SHEET

NAME = "multi-calc-to-impress"
WAIVED = OUTPUT_IS_THE_WORK
HEADERS = (["item", "count"], ["product", "sold"], ["item", "stock"])


def build(rng: random.Random) -> cb.Task:
    path, slides, _ = seed_deck(rng, rng.randint(3, 5))
    number = rng.randint(1, len(slides))
    book = f"{path.split('/')[0]}/{rng.choice(['figures', 'counts', 'numbers'])}_{rng.randint(1, 99)}"
    book += rng.choice([".ods", ".xlsx"])
    return cb.Task(
        description=f"The workbook ~/{book} is open in LibreOffice Calc (behind) and the presentation ~/{path} in "
        f'LibreOffice Impress. On the slide titled "{slides[number - 1]["title"]}", replace the bullet lines with '
        "the workbook's rows, one bullet line per row written as 'ITEM: NUMBER' (for example 'tea: 12'), in the "
        "workbook's order, and nothing else on the slide changed. Then save the presentation in its current "
        "format.",
        metadata={
            "path": path,
            "book": book,
            "slides": slides,
            "number": number,
            "header": rng.choice(HEADERS),
            "rows": counts(rng, 3, 5),
        },
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def lines(meta: Meta) -> list[str]:
    return [f"{item}: {value}" for item, value in meta["rows"]]


def expected(meta: Meta) -> list[Slide]:
    slides = slides_of(meta["slides"])
    body = tuple(lines(meta))
    slides[meta["number"] - 1] = dataclasses.replace(slides[meta["number"] - 1], body=body, levels=(0,) * len(body))
    return slides


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    book = book_bytes({SHEET: [meta["header"], *meta["rows"]]}, book_format(meta["book"]))
    await open_document(task, session, "calc", meta["book"], book)
    deck = deck_bytes(slides_of(meta["slides"]), deck_format(meta["path"]))
    await open_document(task, session, "impress", meta["path"], deck)
    await in_front(session, "impress", meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, expected(task.metadata))]


async def _body(task: cb.Task, session: cb.Session, number: int, text: list[str], *, replace: bool = True) -> None:
    await to_slide(session, number)
    await edit_box(session, 2, "\n".join(text), replace=replace)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _body(task, session, meta["number"], lines(meta))
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The lines on the slide, never saved."""
    meta = task.metadata
    await _body(task, session, meta["number"], lines(meta))


@cb.wrong_way
async def edits_the_next_slide(task: cb.Task, session: cb.Session) -> None:
    """The lines on the slide after the one named (the one before, for the last)."""
    meta = task.metadata
    number = neighbour(meta["number"], len(meta["slides"]))
    await _body(task, session, number, lines(meta))
    await save(session, meta["path"])


@cb.wrong_way
async def last_row_missing(task: cb.Task, session: cb.Session) -> None:
    """Every row but the last."""
    meta = task.metadata
    await _body(task, session, meta["number"], lines(meta)[:-1])
    await save(session, meta["path"])


@cb.wrong_way
async def added_below_the_old_lines(task: cb.Task, session: cb.Session) -> None:
    """The old bullets kept and the lines added after them."""
    meta = task.metadata
    await _body(task, session, meta["number"], ["", *lines(meta)], replace=False)
    await save(session, meta["path"])
