"""impress-speaker-notes: give one slide of a presentation in LibreOffice Impress a sentence as its
speaker notes (the slide named by its number and title) and save it in its own format (``.odp`` or
``.pptx``, by variant).

The oracle shows the slide, switches to View > Notes, tabs past the slide's image to its notes box,
types the sentence, and goes back to View > Normal before Ctrl+S (``_impress.write_notes``).
The evaluator reads the saved presentation in the format its name asks for (``_impress.scored``,
odfpy or python-pptx): that slide's notes exactly the sentence, every slide in order as it was
(layout, title, bullet lines, notes, shown in the show, no other shape), and no other file under home
changed.
Wrong ways: ``never_saved`` (the notes on screen only), ``notes_on_the_next_slide`` (the sentence as
the notes of the slide after, or before the last), ``typed_into_the_body`` (the sentence added as a
last bullet on the slide itself, where the audience sees it) and ``typed_into_the_title`` (the
slide's title replaced by the sentence).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._impress import (
    Slide,
    altered,
    edit_box,
    neighbour,
    notes_line,
    open_deck,
    scored,
    seed_deck,
    slides_of,
    to_slide,
    write_notes,
)
from cua_bench_tasks_desktop._office import save

NAME = "impress-speaker-notes"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, slides, _ = seed_deck(rng, rng.randint(3, 6))
    number = rng.randint(1, len(slides))
    notes = notes_line(rng)
    return cb.Task(
        description=f"The presentation ~/{path} is open in LibreOffice Impress. Add the speaker notes "
        f'"{notes}" to slide {number} (titled "{slides[number - 1]["title"]}"), without changing what the '
        "slides show, then save the presentation in its current format.",
        metadata={"path": path, "slides": slides, "number": number, "notes": notes},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Slide]:
    return altered(slides_of(meta["slides"]), meta["number"], notes=meta["notes"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_deck(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, expected(task.metadata))]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_notes(session, meta["number"], meta["notes"])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The notes written on screen, never saved."""
    await write_notes(session, task.metadata["number"], task.metadata["notes"])


@cb.wrong_way
async def notes_on_the_next_slide(task: cb.Task, session: cb.Session) -> None:
    """The sentence as the notes of the slide after the one asked (the one before, for the last)."""
    meta = task.metadata
    await write_notes(session, neighbour(meta["number"], len(meta["slides"])), meta["notes"])
    await save(session, meta["path"])


@cb.wrong_way
async def typed_into_the_body(task: cb.Task, session: cb.Session) -> None:
    """The sentence added as a last bullet on the slide (Normal view): shown to the audience, no notes."""
    meta = task.metadata
    await to_slide(session, meta["number"])
    await edit_box(session, 2, "\n" + meta["notes"], replace=False)
    await save(session, meta["path"])


@cb.wrong_way
async def typed_into_the_title(task: cb.Task, session: cb.Session) -> None:
    """The slide's title replaced by the sentence."""
    meta = task.metadata
    await to_slide(session, meta["number"])
    await edit_box(session, 1, meta["notes"])
    await save(session, meta["path"])
