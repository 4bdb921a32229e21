"""impress-hide-slide: hide one slide of a presentation from the slide show in LibreOffice Impress
(the slide named by its number and title) and save it in its own format (``.odp`` or ``.pptx``, by
variant).

The oracle selects the slide in the slide pane and chooses Slide > Hide Slide, then Ctrl+S.
The evaluator reads the saved presentation in the format its name asks for (``_impress.scored``,
odfpy or python-pptx): every slide still there in its order, that one alone hidden (an ``.odp``
page style's ``presentation:visibility``, a ``.pptx`` slide's ``show="0"``), each as it was (layout,
title, bullet lines, notes, no other shape), and no other file under home changed.
Wrong ways: ``never_saved`` (hidden on screen only), ``hides_the_next_slide`` (the slide after, or
before the last), ``deleted_instead`` (Slide > Delete Slide: gone from the file, not kept hidden) and
``hides_two_slides`` (the slide and the one after it, or before the last, selected together and
hidden).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders, press
from cua_bench_tasks_desktop._impress import SlideCommand, altered, pick_in_pane, seed_deck, settled, slide_menu
from cua_bench_tasks_desktop._office import save

NAME = "impress-hide-slide"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, slides, _ = seed_deck(rng, rng.randint(3, 6))
    number = rng.randint(1, len(slides))
    return cb.Task(
        description=f"The presentation ~/{path} is open in LibreOffice Impress. Hide slide {number} (titled "
        f'"{slides[number - 1]["title"]}") so that the slide show skips it, keeping it in the presentation, '
        "then save the presentation in its current format.",
        metadata={"path": path, "slides": slides, "number": number},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)

HIDE = SlideCommand("h", lambda slides, number: altered(slides, number, hidden=True))  # Slide > Hide Slide
setup, evaluate, solve = HIDE.functions()
never_saved = HIDE.unsaved("never_saved", "The slide hidden on screen, never saved.")
hides_the_next_slide = HIDE.on_the_neighbour(
    "hides_the_next_slide", "The slide after the one asked hidden (the one before, for the last)."
)


@cb.wrong_way
async def deleted_instead(task: cb.Task, session: cb.Session) -> None:
    """The slide deleted (Delete in the slide pane): out of the show, and out of the presentation too."""
    meta = task.metadata
    await pick_in_pane(session, meta["number"])
    await press(session, "delete")
    await settled(session)
    await save(session, meta["path"])


@cb.wrong_way
async def hides_two_slides(task: cb.Task, session: cb.Session) -> None:
    """The slide and its neighbour selected together in the slide pane (Shift+Down or Up), both hidden."""
    meta = task.metadata
    last = meta["number"] == len(meta["slides"])
    await pick_in_pane(session, meta["number"])
    await press(session, "shift+up" if last else "shift+down")
    await settled(session)
    await slide_menu(session, "h")
    await save(session, meta["path"])
