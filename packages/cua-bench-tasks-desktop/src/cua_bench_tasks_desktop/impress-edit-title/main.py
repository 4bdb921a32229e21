"""impress-edit-title: change one slide's title in LibreOffice Impress (the slide named by its number)
and save the presentation in its own format (``.odp`` or ``.pptx``, by variant).

The evaluator reads the saved presentation in the format its name asks for (``_impress.scored``):
every slide in order with its layout, title, bullet lines, notes and visibility, the one title
changed, no other shape on any slide, and no other file under home changed.
Wrong ways: ``never_saved`` (the edit on screen only), ``edits_the_next_slide`` (the new title on
the slide after, or before the last), ``title_typed_into_the_body`` (the body's text replaced by the
new title, the title as it was), ``also_in_the_body`` (the right title, and the new title also added
as a last bullet) and ``pasted_a_second_title`` (the right title, and a copy of the title box pasted
onto the slide: a shape besides the placeholders).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, key, loaders, press
from cua_bench_tasks_desktop._impress import (
    Slide,
    altered,
    changed,
    edit_box,
    neighbour,
    open_deck,
    scored,
    seed_deck,
    settled,
    slides_of,
    to_slide,
)
from cua_bench_tasks_desktop._office import save

NAME = "impress-edit-title"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, slides, fresh = seed_deck(rng, rng.randint(3, 6))
    number = rng.randint(1, len(slides))
    return cb.Task(
        description=f"The presentation ~/{path} is open in LibreOffice Impress. Change the title of slide "
        f'{number} (now "{slides[number - 1]["title"]}") to "{fresh[0]}", then save the presentation in '
        "its current format.",
        metadata={"path": path, "slides": slides, "number": number, "title": fresh[0]},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Slide]:
    return altered(slides_of(meta["slides"]), meta["number"], title=meta["title"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_deck(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, expected(task.metadata))]


async def retitle(session: cb.Session, number: int, title: str) -> None:
    """Slide ``number`` shown, its title box edited: all its text replaced by ``title``."""
    await to_slide(session, number)
    await edit_box(session, 1, title)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await retitle(session, meta["number"], meta["title"])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The title changed on screen, never saved."""
    await retitle(session, task.metadata["number"], task.metadata["title"])


@cb.wrong_way
async def edits_the_next_slide(task: cb.Task, session: cb.Session) -> None:
    """The new title given to the slide after the one asked (the one before, for the last slide)."""
    meta = task.metadata
    number = neighbour(meta["number"], len(meta["slides"]))
    await retitle(session, number, meta["title"])
    await save(session, meta["path"])


@cb.wrong_way
async def title_typed_into_the_body(task: cb.Task, session: cb.Session) -> None:
    """The slide's body text replaced by the new title; its title as it was."""
    meta = task.metadata
    await to_slide(session, meta["number"])
    await edit_box(session, 2, meta["title"])
    await save(session, meta["path"])


@cb.wrong_way
async def also_in_the_body(task: cb.Task, session: cb.Session) -> None:
    """The right title, and the new title also added as a last bullet of the slide's body."""
    meta = task.metadata
    await retitle(session, meta["number"], meta["title"])
    await edit_box(session, 2, "\n" + meta["title"], replace=False)
    await save(session, meta["path"])


@cb.wrong_way
async def pasted_a_second_title(task: cb.Task, session: cb.Session) -> None:
    """The right title, then the title box copied and pasted onto the slide (two boxes show it)."""
    meta = task.metadata
    await retitle(session, meta["number"], meta["title"])
    await changed(session, key("tab"))
    await press(session, "ctrl+c", "ctrl+v")  # the copy lands on the original: nothing moves on screen
    await settled(session)
    await save(session, meta["path"])
