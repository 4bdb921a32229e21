"""gimp-rotate-image: rotate the image open in GIMP by a quarter turn (either way) or a half turn and
export it as a PNG.

The oracle runs Image > Transform > Rotate 90° clockwise (counter-clockwise, 180°) from GIMP's
command search (``_gimp.run_action``), waits for the title to show the new size (or the ``*`` of a
change for a half turn), then File > Export As (shift+ctrl+e) under the new name and the PNG
dialog's Export button, and waits for the file.

The evaluator reads the export with Pillow (``_gimp.exported``): a plain file with one link, a real
PNG (by content), RGB, with exactly the seed's pixels turned the asked way (a rotation by quarter
turns is lossless); and no other file under home changed (the seed among them; GIMP's
profile and GTK 2's file chooser settings may change: ``_gimp.scored``). The seeds are never
square for a quarter turn, so the size alone tells a quarter turn from none.
Wrong ways: ``turns_the_other_way`` (counter-clockwise for clockwise and back; a quarter turn for a
half turn), ``flips_instead`` (Flip Horizontally) and ``exports_unrotated``.
"""

from __future__ import annotations

import random

import numpy as np

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._gimp import (
    WAIVERS,
    Pixels,
    as_picture,
    draw,
    edited_png,
    png_holds,
    seed,
    setup_edit,
)

NAME = "gimp-rotate-image"
WAIVED = WAIVERS
# turn: (GIMP's action, how the description says it, quarter turns counter-clockwise as numpy's rot90 counts)
TURNS = {
    "clockwise": ("rotate-90", "90 degrees clockwise", -1),
    "counter-clockwise": ("rotate-270", "90 degrees counter-clockwise", 1),
    "half": ("rotate-180", "180 degrees", 2),
}


def build(rng: random.Random) -> cb.Task:
    turn = rng.choice(sorted(TURNS))
    meta = seed(rng, rng.choice(["_rotated", "-turned", "_rot"]), square=False)
    return cb.Task(
        description=f"The image ~/{meta['path']} is open in GIMP. Rotate the whole image {TURNS[turn][1]} and "
        f"export the result as a PNG file ~/{meta['out']}. Leave the original file as it is.",
        metadata={**meta, "turn": turn},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: Meta) -> Pixels:
    return np.rot90(draw(as_picture(meta["picture"])), TURNS[meta["turn"]][2])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await setup_edit(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await png_holds(task, session, expected(task.metadata))


async def _turn_and_export(session: cb.Session, meta: Meta, item: str | None) -> None:
    pic = meta["picture"]
    quarter = item in ("rotate-90", "rotate-270")
    await edited_png(session, meta, item, size=(pic["height"], pic["width"]) if quarter else None)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _turn_and_export(session, meta, TURNS[meta["turn"]][0])


@cb.wrong_way
async def turns_the_other_way(task: cb.Task, session: cb.Session) -> None:
    """A quarter turn the other way (for a half turn: a clockwise quarter turn)."""
    meta = task.metadata
    other = {"clockwise": "counter-clockwise", "counter-clockwise": "clockwise", "half": "clockwise"}[meta["turn"]]
    await _turn_and_export(session, meta, TURNS[other][0])


@cb.wrong_way
async def flips_instead(task: cb.Task, session: cb.Session) -> None:
    """Image > Transform > Flip Horizontally instead of a rotation."""
    await _turn_and_export(session, task.metadata, "flip-horizontal")


@cb.wrong_way
async def exports_unrotated(task: cb.Task, session: cb.Session) -> None:
    """Exported under the new name without the rotation."""
    await _turn_and_export(session, task.metadata, None)
