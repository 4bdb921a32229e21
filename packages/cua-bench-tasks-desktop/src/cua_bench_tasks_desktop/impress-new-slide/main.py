"""impress-new-slide: add a Title, Content slide at the end of a presentation in LibreOffice Impress
with a given title and one bullet line, and save it in its own format (``.odp`` or ``.pptx``, by
variant).

The evaluator reads the saved presentation in the format its name asks for (``_impress.scored``):
the seeded slides as they were, then one more with the Title, Content layout (title and outline
placeholders), the title asked and exactly the one top-level bullet, no other shape on any slide, and
no other file under home changed. In ``.pptx`` Impress 7.4 gives a new slide the Title, Object
layout, so the oracle sets Slide > Layout > Title, Content, as a person would when no text box shows.
Wrong ways: ``never_saved`` (the slide made on screen only), ``added_after_the_first_slide`` (the
right slide in the wrong place), ``as_a_title_slide`` (the Title Slide layout: the line in a
subtitle) and ``line_in_the_title`` (the bullet typed as a second line of the title, the body empty).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._impress import (
    TITLE_SLIDE,
    Slide,
    line,
    new_slide,
    open_deck,
    scored,
    seed_deck,
    slides_of,
    to_slide,
)
from cua_bench_tasks_desktop._office import save

NAME = "impress-new-slide"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, slides, fresh = seed_deck(rng, rng.randint(2, 5))
    body = line(rng)
    while "monday" in body:  # typed: Impress's autocorrect would capitalise the day's name
        body = line(rng)
    return cb.Task(
        description=f"The presentation ~/{path} is open in LibreOffice Impress. Add a new slide at the end, with "
        f'the "Title, Content" layout, the title "{fresh[0]}" and a single bullet point "{body}" in its content '
        "box, then save the presentation in its current format.",
        metadata={"path": path, "slides": slides, "title": fresh[0], "body": body},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Slide]:
    return [*slides_of(meta["slides"]), Slide(title=meta["title"], body=(meta["body"],))]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_deck(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, expected(task.metadata))]


async def add_at_end(session: cb.Session, meta: dict[str, Any]) -> None:
    await to_slide(session, len(meta["slides"]))
    await new_slide(session, meta["title"], meta["body"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await add_at_end(session, task.metadata)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The slide added on screen, never saved."""
    await add_at_end(session, task.metadata)


@cb.wrong_way
async def added_after_the_first_slide(task: cb.Task, session: cb.Session) -> None:
    """The right slide, inserted after the first slide instead of at the end."""
    meta = task.metadata
    await to_slide(session, 1)
    await new_slide(session, meta["title"], meta["body"])
    await save(session, meta["path"])


@cb.wrong_way
async def as_a_title_slide(task: cb.Task, session: cb.Session) -> None:
    """A new slide at the end with the Title Slide layout: the title, and the line as its subtitle."""
    meta = task.metadata
    await to_slide(session, len(meta["slides"]))
    await new_slide(session, meta["title"], meta["body"], layout=TITLE_SLIDE)
    await save(session, meta["path"])


@cb.wrong_way
async def line_in_the_title(task: cb.Task, session: cb.Session) -> None:
    """A new Title, Content slide at the end whose title holds the title and, on a second line, the bullet."""
    meta = task.metadata
    await to_slide(session, len(meta["slides"]))
    await new_slide(session, f"{meta['title']}\n{meta['body']}", None)
    await save(session, meta["path"])
