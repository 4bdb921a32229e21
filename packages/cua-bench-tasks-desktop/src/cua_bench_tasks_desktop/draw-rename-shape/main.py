"""draw-rename-shape: give one named shape of a drawing open in LibreOffice Draw a new name (Format >
Name, the name the Navigator lists), then save the drawing (``.odg``).

The oracle shows the shape's page, selects the shape with Tab (z-order), runs Format > Name from LibreOffice's Search
Commands (Shift+Esc), types the name over the old one, presses Enter and saves.
The evaluator reads the saved ``.odg`` with lxml (``_draw.scored``): every page and shape as seeded (kind, box, fill,
line, text, rotation, title, description, other style properties, z-order), the one shape's ``draw:name`` the name
asked; no other file under home changed.
Wrong ways: ``never_saved``, ``renames_the_neighbour`` (the next shape on the page) and ``sets_the_title_instead``
(Format > Description's Title: the shape keeps its name).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders, submit_dialog
from cua_bench_tasks_desktop._draw import Page, command, edited, open_seeded, scored, seed, select
from cua_bench_tasks_desktop._office import save

NAME = "draw-rename-shape"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, pages, fresh = seed(rng)
    page = rng.randrange(len(pages))
    index = rng.randrange(len(pages[page]["shapes"]))
    old = pages[page]["shapes"][index]["name"]
    return cb.Task(
        description=f'The drawing ~/{path} is open in LibreOffice Draw. On the page "{pages[page]["name"]}", '
        f'rename the shape named "{old}" to "{fresh[0]}". Change nothing else, then save the drawing in its '
        "current format.",
        metadata={"path": path, "pages": pages, "page": page, "index": index, "name": fresh[0]},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Page]:
    return edited(meta["pages"], meta["page"], meta["index"], name=meta["name"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, expected(task.metadata))


async def name_it(session: cb.Session, meta: dict[str, Any], words: str, dialog: str, index: int | None = None) -> None:
    """The shape (or the page's ``index``-th) selected, the command ``words`` run, and its dialog's
    focused field given the new name."""
    await select(session, meta["page"] + 1, meta["index"] if index is None else index)
    await command(session, words, dialog)
    await submit_dialog(session, dialog, meta["name"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await name_it(session, meta, "Name", "Name")
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Renamed on screen, never saved."""
    await name_it(session, task.metadata, "Name", "Name")


@cb.wrong_way
async def renames_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The next shape on the page (the first, after the last) renamed."""
    meta = task.metadata
    index = (meta["index"] + 1) % len(meta["pages"][meta["page"]]["shapes"])
    await name_it(session, meta, "Name", "Name", index=index)
    await save(session, meta["path"])


@cb.wrong_way
async def sets_the_title_instead(task: cb.Task, session: cb.Session) -> None:
    """Format > Description, the new name typed as the shape's Title; its name left."""
    meta = task.metadata
    await name_it(session, meta, "Description", "Description")
    await save(session, meta["path"])
