"""gimp-flip-image: flip the image open in GIMP horizontally or vertically and export it as a PNG.

The oracle runs Image > Transform > Flip Horizontally (or Flip Vertically) from GIMP's command
search (``_gimp.run_action``), waits for the title to show the change, then File > Export As
(shift+ctrl+e) under the new name and the PNG dialog's Export button, and waits for the file.

The evaluator reads the export with Pillow (``_gimp.exported``): a plain file with one link, a real
PNG (by content), RGB, with exactly the seed's pixels mirrored the asked way (a flip is lossless);
and no other file under home changed (the seed among them; GIMP's
profile and GTK 2's file chooser settings may change: ``_gimp.scored``).
Wrong ways: ``flips_the_other_way``, ``rotates_half_a_turn`` (Rotate 180°: both flips at once) and
``exports_unflipped``.
"""

from __future__ import annotations

import random

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

NAME = "gimp-flip-image"
WAIVED = WAIVERS
FLIPS = {
    "horizontally": ("flip-horizontal", "mirror it left to right"),
    "vertically": ("flip-vertical", "turn it upside down as in a mirror below it"),
}


def build(rng: random.Random) -> cb.Task:
    way = rng.choice(sorted(FLIPS))
    meta = seed(rng, rng.choice(["_flipped", "-mirror", "_flip"]))
    return cb.Task(
        description=f"The image ~/{meta['path']} is open in GIMP. Flip the image {way} "
        f"({FLIPS[way][1]}) and export the result as a PNG file ~/{meta['out']}. Leave the original file as it is.",
        metadata={**meta, "way": way},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: Meta) -> Pixels:
    pixels = draw(as_picture(meta["picture"]))
    return pixels[:, ::-1] if meta["way"] == "horizontally" else pixels[::-1]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await setup_edit(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await png_holds(task, session, expected(task.metadata))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await edited_png(session, meta, FLIPS[meta["way"]][0])


@cb.wrong_way
async def flips_the_other_way(task: cb.Task, session: cb.Session) -> None:
    """Flipped the other way (vertically for horizontally, and back)."""
    meta = task.metadata
    other = next(way for way in FLIPS if way != meta["way"])
    await edited_png(session, meta, FLIPS[other][0])


@cb.wrong_way
async def rotates_half_a_turn(task: cb.Task, session: cb.Session) -> None:
    """Rotate 180° instead of a flip: both mirrors at once."""
    await edited_png(session, task.metadata, "rotate-180")


@cb.wrong_way
async def exports_unflipped(task: cb.Task, session: cb.Session) -> None:
    """Exported under the new name without the flip."""
    await edited_png(session, task.metadata, None)
