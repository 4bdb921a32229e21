"""impress-delete-slide: delete the slide of a given title from a presentation in LibreOffice Impress
and save it in its own format (``.odp`` or ``.pptx``, by variant).

The evaluator reads the saved presentation in the format its name asks for (``_impress.scored``):
the other slides in their order, each as it was (layout, title, bullet lines, notes, shown in the
show), no other shape on any slide, and no other file under home changed.
Wrong ways: ``never_saved`` (deleted on screen only), ``deletes_the_next_slide`` (its neighbour
instead), ``hides_it_instead`` (Slide > Hide Slide: out of the show, still in the file) and
``empties_it_instead`` (every object on it deleted: an empty slide left in its place).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders, press
from cua_bench_tasks_desktop._impress import (
    Slide,
    neighbour,
    open_deck,
    pick_in_pane,
    scored,
    seed_deck,
    settled,
    slide_menu,
    slides_of,
    to_slide,
)
from cua_bench_tasks_desktop._office import save

NAME = "impress-delete-slide"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, slides, _ = seed_deck(rng, rng.randint(3, 6))
    number = rng.randint(1, len(slides))
    return cb.Task(
        description=f"The presentation ~/{path} is open in LibreOffice Impress. Delete the slide titled "
        f'"{slides[number - 1]["title"]}", then save the presentation in its current format.',
        metadata={"path": path, "slides": slides, "number": number},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Slide]:
    slides = slides_of(meta["slides"])
    del slides[meta["number"] - 1]
    return slides


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_deck(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, expected(task.metadata))]


async def delete(session: cb.Session, number: int) -> None:
    """Slide ``number`` selected in the slide pane and deleted (Delete)."""
    await pick_in_pane(session, number)
    await press(session, "delete")
    await settled(session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await delete(session, meta["number"])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The slide deleted on screen, never saved."""
    await delete(session, task.metadata["number"])


@cb.wrong_way
async def deletes_the_next_slide(task: cb.Task, session: cb.Session) -> None:
    """The slide after the one asked deleted (the one before, for the last slide)."""
    meta = task.metadata
    number = neighbour(meta["number"], len(meta["slides"]))
    await delete(session, number)
    await save(session, meta["path"])


@cb.wrong_way
async def hides_it_instead(task: cb.Task, session: cb.Session) -> None:
    """The slide hidden (Slide > Hide Slide): left out of the show, still in the presentation."""
    meta = task.metadata
    await pick_in_pane(session, meta["number"])
    await slide_menu(session, "h")
    await save(session, meta["path"])


@cb.wrong_way
async def empties_it_instead(task: cb.Task, session: cb.Session) -> None:
    """Everything on the slide selected (Ctrl+A) and deleted: an empty slide left where it was."""
    meta = task.metadata
    await to_slide(session, meta["number"])
    await press(session, "ctrl+a")
    await settled(session)
    await press(session, "delete")
    await settled(session)
    await save(session, meta["path"])
