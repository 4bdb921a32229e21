"""impress-duplicate-slide: duplicate one slide of a presentation in LibreOffice Impress (the slide
named by its number and title) so that the copy comes right after it, and save it in its own format
(``.odp`` or ``.pptx``, by variant).

The oracle selects the slide in the slide pane and chooses Slide > Duplicate Slide, then Ctrl+S.
The evaluator reads the saved presentation in the format its name asks for (``_impress.scored``,
odfpy or python-pptx): the seeded slides in order with that one twice in a row, each copy as the
original (layout, title, bullet lines, notes, shown in the show, no other shape), and no other file
under home changed.
Wrong ways: ``never_saved`` (duplicated on screen only), ``duplicates_the_next_slide`` (the slide
after, or before the last), ``new_slide_instead`` (Slide > New Slide after it: an empty Title, Content
slide, not a copy) and ``copy_moved_to_the_end`` (duplicated, then the copy moved to the end; the
slide asked is never the last, so this is always another order).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, key, loaders, press
from cua_bench_tasks_desktop._impress import (
    SlideCommand,
    changed,
    duplicated,
    pick_in_pane,
    seed_deck,
    settled,
)
from cua_bench_tasks_desktop._office import save

NAME = "impress-duplicate-slide"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, slides, _ = seed_deck(rng, rng.randint(3, 6))
    number = rng.randint(1, len(slides) - 1)  # not the last: its copy moved to the end would be right
    return cb.Task(
        description=f"The presentation ~/{path} is open in LibreOffice Impress. Duplicate slide {number} (titled "
        f'"{slides[number - 1]["title"]}") so that its copy comes right after it, then save the presentation '
        "in its current format.",
        metadata={"path": path, "slides": slides, "number": number},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


DUPLICATE = SlideCommand("s", duplicated)  # Slide > Duplicate Slide: the copy comes selected
setup, evaluate, solve = DUPLICATE.functions()
never_saved = DUPLICATE.unsaved("never_saved", "The slide duplicated on screen, never saved.")
duplicates_the_next_slide = DUPLICATE.on_the_neighbour(
    "duplicates_the_next_slide", "The slide after the one asked duplicated."
)


@cb.wrong_way
async def new_slide_instead(task: cb.Task, session: cb.Session) -> None:
    """Slide > New Slide (Ctrl+M) with the slide selected: an empty slide after it, not its copy."""
    meta = task.metadata
    await pick_in_pane(session, meta["number"])
    await changed(session, key("ctrl+m"))
    await save(session, meta["path"])


@cb.wrong_way
async def copy_moved_to_the_end(task: cb.Task, session: cb.Session) -> None:
    """Duplicated, then the copy moved to the end (Slide > Move > Slide to End)."""
    meta = task.metadata
    await DUPLICATE.run(session, meta["number"])
    await press(session, "alt+shift+end")
    await settled(session)
    await save(session, meta["path"])
