"""draw-shape-text: replace the word a named shape of a drawing open in LibreOffice Draw holds with a given
line of text, then save the drawing (``.odg``).

The oracle shows the shape's page, selects the shape with Tab (z-order), presses Enter (the shape's text
in edit, the caret at its end), selects all of it (Ctrl+A), types the line, leaves the text with Esc and
saves (Ctrl+S).
The evaluator reads the saved ``.odg`` with lxml (``_draw.scored``): the shape's text exactly the line
(one paragraph, its spaces as typed), every page and shape otherwise as seeded (kind, name, box, fill,
line, rotation, title, description, other style properties, z-order); no other file under home changed.
Wrong ways: ``never_saved``, ``appended_to_the_word`` (typed after the old word, not over it),
``typed_into_the_neighbour`` (the next shape on the page gets the line).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders, press, sentence, type_text
from cua_bench_tasks_desktop._draw import Page, edited, open_seeded, scored, seed, select
from cua_bench_tasks_desktop._impress import settled
from cua_bench_tasks_desktop._office import save

NAME = "draw-shape-text"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, pages, _ = seed(rng, texts=0.7)
    spots = [(p, i) for p, page in enumerate(pages) for i, shape in enumerate(page["shapes"]) if shape["text"]]
    while not spots:
        path, pages, _ = seed(rng, texts=0.7)
        spots = [(p, i) for p, page in enumerate(pages) for i, shape in enumerate(page["shapes"]) if shape["text"]]
    page, index = rng.choice(spots)
    shape = pages[page]["shapes"][index]
    line = sentence(rng)
    while "monday" in line:  # typed: LibreOffice's autocorrect would capitalise the day's name
        line = sentence(rng)
    return cb.Task(
        description=f'The drawing ~/{path} is open in LibreOffice Draw. On the page "{pages[page]["name"]}", the '
        f'shape named "{shape["name"]}" shows the word "{shape["text"]}". Replace its text with "{line}" (that '
        "line alone). Change nothing else, then save the drawing in its current format.",
        metadata={"path": path, "pages": pages, "page": page, "index": index, "text": line},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Page]:
    return edited(meta["pages"], meta["page"], meta["index"], text=meta["text"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, expected(task.metadata))


async def write(session: cb.Session, meta: dict[str, Any], *, index: int | None = None, over: bool = True) -> None:
    """The shape (or the page's ``index``-th) selected, its text edited (Enter): all of it selected (with
    ``over``) and the line typed, then Esc."""
    await select(session, meta["page"] + 1, meta["index"] if index is None else index)
    await press(session, "Return")
    await settled(session)
    if over:
        await press(session, "ctrl+a")
    await type_text(session, meta["text"])
    await press(session, "escape")
    await settled(session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await write(session, task.metadata)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The text changed on screen, never saved."""
    await write(session, task.metadata)


@cb.wrong_way
async def appended_to_the_word(task: cb.Task, session: cb.Session) -> None:
    """The line typed after the shape's old word (the caret where Enter left it), not over it."""
    await write(session, task.metadata, over=False)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def typed_into_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The next shape on the page (the first, after the last) gets the line."""
    meta = task.metadata
    await write(session, meta, index=(meta["index"] + 1) % len(meta["pages"][meta["page"]]["shapes"]))
    await save(session, meta["path"])
