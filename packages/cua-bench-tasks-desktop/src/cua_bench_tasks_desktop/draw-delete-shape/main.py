"""draw-delete-shape: delete one named shape from a drawing open in LibreOffice Draw, then save the
drawing (``.odg``).

The oracle shows the shape's page, selects the shape with Tab (z-order), presses Delete and saves.
The evaluator reads the saved ``.odg`` with lxml (``_draw.scored``): the shape is on no page, the other
shapes of its page in their order and every other page as seeded (names, and each shape's kind, name,
box, fill, line, text, rotation, title, description, other style properties); no other file under home changed.
Wrong ways: ``never_saved``, ``deletes_the_neighbour`` (the next shape on the page), ``deletes_the_page``
(Page > Delete Page: the shape and every other shape on its page gone) and ``empties_its_text`` (the
shape's text deleted, the shape left; only where it has text, else it deletes the first shape of the
first other page).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders, press
from cua_bench_tasks_desktop._draw import Page, command, open_seeded, reordered, scored, seed, select, to_page
from cua_bench_tasks_desktop._impress import settled
from cua_bench_tasks_desktop._office import save

NAME = "draw-delete-shape"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, pages, _ = seed(rng)
    page = rng.randrange(len(pages))
    index = rng.randrange(len(pages[page]["shapes"]))
    name = pages[page]["shapes"][index]["name"]
    return cb.Task(
        description=f'The drawing ~/{path} is open in LibreOffice Draw. On the page "{pages[page]["name"]}", '
        f'delete the shape named "{name}". Change nothing else, then save the drawing in its current format.',
        metadata={"path": path, "pages": pages, "page": page, "index": index},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Page]:
    order = [i for i in range(len(meta["pages"][meta["page"]]["shapes"])) if i != meta["index"]]
    return reordered(meta["pages"], meta["page"], order)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, expected(task.metadata))


async def delete(session: cb.Session, page: int, index: int) -> None:
    await select(session, page + 1, index)
    await press(session, "Delete")
    await settled(session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await delete(session, meta["page"], meta["index"])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Deleted on screen, never saved."""
    await delete(session, task.metadata["page"], task.metadata["index"])


@cb.wrong_way
async def deletes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The next shape on the page (the first, after the last) deleted."""
    meta = task.metadata
    await delete(session, meta["page"], (meta["index"] + 1) % len(meta["pages"][meta["page"]]["shapes"]))
    await save(session, meta["path"])


@cb.wrong_way
async def deletes_the_page(task: cb.Task, session: cb.Session) -> None:
    """Page > Delete Page on the shape's page: every shape on it gone with the page."""
    meta = task.metadata
    await to_page(session, meta["page"] + 1)
    await command(session, "Delete Page")
    await save(session, meta["path"])


@cb.wrong_way
async def empties_its_text(task: cb.Task, session: cb.Session) -> None:
    """The shape's text deleted (Enter, Ctrl+A, Delete, Esc), the shape left."""
    meta = task.metadata
    shape = meta["pages"][meta["page"]]["shapes"][meta["index"]]
    if not shape["text"]:
        await delete(session, (meta["page"] + 1) % len(meta["pages"]), 0)
    else:
        await select(session, meta["page"] + 1, meta["index"])
        await press(session, "Return")
        await settled(session)
        await press(session, "ctrl+a", "Delete", "escape")
        await settled(session)
    await save(session, meta["path"])
