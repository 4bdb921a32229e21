"""draw-rename-page: give one named page of a drawing open in LibreOffice Draw a new name (Page > Rename
Page), then save the drawing (``.odg``).

The oracle shows the page (a click in the view's margin, Home, Page Down), runs Page > Rename Page from
LibreOffice's Search Commands (Shift+Esc; its dialog is titled Rename Slide), types the name over the old
one, presses Enter and saves (Ctrl+S).
The evaluator reads the saved ``.odg`` with lxml (``_draw.scored``): the pages in order with their names,
the one page's the name asked, every shape as seeded (kind, name, box, fill, line, text, rotation, title,
description, z-order); no other file under home changed.
Wrong ways: ``never_saved``, ``renames_another_page`` (the first page, or the second when the first is
asked) and ``names_a_shape_instead`` (the page's first shape gets the name, Format > Name).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders, submit_dialog
from cua_bench_tasks_desktop._draw import Page, command, expected_pages, open_seeded, scored, seed, select, to_page
from cua_bench_tasks_desktop._office import save

NAME = "draw-rename-page"
WAIVED = OUTPUT_IS_THE_WORK
DIALOG = "Rename Slide"


def build(rng: random.Random) -> cb.Task:
    path, pages, fresh = seed(rng)
    page = rng.randrange(len(pages))
    new = fresh[-1]
    return cb.Task(
        description=f'The drawing ~/{path} is open in LibreOffice Draw. Rename its page "{pages[page]["name"]}" '
        f'(page {page + 1}) to "{new}". Change nothing else, then save the drawing in its current format.',
        metadata={"path": path, "pages": pages, "page": page, "name": new},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Page]:
    pages = expected_pages(meta["pages"])
    pages[meta["page"]] = dataclasses.replace(pages[meta["page"]], name=meta["name"])
    return pages


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, expected(task.metadata))


async def rename(session: cb.Session, page: int, name: str) -> None:
    """Page ``page`` (0-based) shown, Page > Rename Page, ``name`` typed over its name, Enter."""
    await to_page(session, page + 1)
    await command(session, "Rename Page", DIALOG)
    await submit_dialog(session, DIALOG, name)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await rename(session, meta["page"], meta["name"])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Renamed on screen, never saved."""
    await rename(session, task.metadata["page"], task.metadata["name"])


@cb.wrong_way
async def renames_another_page(task: cb.Task, session: cb.Session) -> None:
    """The first page renamed (the second, when the first is asked)."""
    meta = task.metadata
    await rename(session, 1 if meta["page"] == 0 else 0, meta["name"])
    await save(session, meta["path"])


@cb.wrong_way
async def names_a_shape_instead(task: cb.Task, session: cb.Session) -> None:
    """The page's first shape named (Format > Name) instead of the page."""
    meta = task.metadata
    await select(session, meta["page"] + 1, 0)
    await command(session, "Name", "Name")
    await submit_dialog(session, "Name", meta["name"])
    await save(session, meta["path"])
