"""impress-move-slide: move the slide of a given title to the start or the end of a presentation in
LibreOffice Impress and save it in its own format (``.odp`` or ``.pptx``, by variant).

The evaluator reads the saved presentation in the format its name asks for (``_impress.scored``):
the same slides, each as it was (layout, title, bullet lines, notes, shown in the show), in the new
order, no other shape on any slide, and no other file under home changed. The slide starts at least
two places from where it must go (one step is not the move) and not at the other end.
Wrong ways: ``never_saved`` (moved on screen only), ``moved_one_step`` (Slide > Move > Slide Up or
Down once), ``moved_to_the_other_end`` (to the end instead of the start, or the other way) and
``copied_instead_of_moved`` (Slide > Duplicate Slide, and the copy moved: the slide is in both places).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders, press
from cua_bench_tasks_desktop._impress import (
    Slide,
    open_deck,
    pick_in_pane,
    scored,
    seed_deck,
    settled,
    slide_menu,
    slides_of,
)
from cua_bench_tasks_desktop._office import save

NAME = "impress-move-slide"
WAIVED = OUTPUT_IS_THE_WORK
KEYS = {"first": "alt+shift+home", "last": "alt+shift+end"}
"""Slide > Move > Slide to Start / Slide to End, in the slide pane."""
STEP = {"first": "alt+shift+pageup", "last": "alt+shift+pagedown"}
"""Slide > Move > Slide Up / Slide Down."""


def build(rng: random.Random) -> cb.Task:
    path, slides, _ = seed_deck(rng, rng.randint(4, 6))
    where = rng.choice(["first", "last"])
    # At least two places from where it must go, and not at the other end (every wrong way moves it).
    number = rng.randint(3, len(slides) - 1) if where == "first" else rng.randint(2, len(slides) - 2)
    return cb.Task(
        description=f"The presentation ~/{path} is open in LibreOffice Impress. Move the slide titled "
        f'"{slides[number - 1]["title"]}" so that it is the {where} slide, then save the presentation in its '
        "current format.",
        metadata={"path": path, "slides": slides, "number": number, "where": where},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Slide]:
    slides = slides_of(meta["slides"])
    moved = slides.pop(meta["number"] - 1)
    return [moved, *slides] if meta["where"] == "first" else [*slides, moved]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_deck(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, expected(task.metadata))]


async def move(session: cb.Session, meta: dict[str, Any], combo: str) -> None:
    """The slide selected in the slide pane, and ``combo`` pressed there."""
    await pick_in_pane(session, meta["number"])
    await press(session, combo)
    await settled(session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await move(session, meta, KEYS[meta["where"]])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The slide moved on screen, never saved."""
    await move(session, task.metadata, KEYS[task.metadata["where"]])


@cb.wrong_way
async def moved_one_step(task: cb.Task, session: cb.Session) -> None:
    """The slide moved one place toward where it must go (Slide > Move > Slide Up or Down)."""
    meta = task.metadata
    await move(session, meta, STEP[meta["where"]])
    await save(session, meta["path"])


@cb.wrong_way
async def moved_to_the_other_end(task: cb.Task, session: cb.Session) -> None:
    """The slide moved to the end when asked for the start, or to the start when asked for the end."""
    meta = task.metadata
    await move(session, meta, KEYS["last" if meta["where"] == "first" else "first"])
    await save(session, meta["path"])


@cb.wrong_way
async def copied_instead_of_moved(task: cb.Task, session: cb.Session) -> None:
    """Slide > Duplicate Slide, then the copy moved where asked: the slide is in both places."""
    meta = task.metadata
    await pick_in_pane(session, meta["number"])
    await slide_menu(session, "s")
    await press(session, KEYS[meta["where"]])
    await settled(session)
    await save(session, meta["path"])
