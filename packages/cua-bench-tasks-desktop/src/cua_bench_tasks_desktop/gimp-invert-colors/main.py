"""gimp-invert-colors: invert the colours of the image open in GIMP (each channel value v becomes
255 - v) and export it as a PNG.

The oracle runs Colors > Invert from GIMP's command search (``_gimp.run_action``), waits for the
title's ``*`` of a change, then File > Export As (shift+ctrl+e) under the new name and the PNG
dialog's Export button, and waits for the file.

The evaluator reads the export with Pillow (``_gimp.exported``): a plain file with one link, a real
PNG (by content), RGB, each pixel 255 minus the seed's within 1 (GIMP's Invert works on the
gamma-encoded values, so it is exact); and no other file under home changed (the seed among them; GIMP's
profile and GTK 2's file chooser settings may change: ``_gimp.scored``).
Every seed has colourful rectangles, where Value Invert (which keeps the hue) and 255 - v part.
Wrong ways: ``inverts_linear_light`` (Colors > Linear Invert: the inverse of the linear light, far
from 255 - v in the mid-tones), ``inverts_value_only`` (Colors > Value Invert: hue kept) and
``exports_uninverted``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._gimp import (
    WAIVERS,
    as_picture,
    draw,
    edited_png,
    png_holds,
    seed,
    setup_edit,
)

NAME = "gimp-invert-colors"
WAIVED = WAIVERS


def build(rng: random.Random) -> cb.Task:
    meta = seed(rng, rng.choice(["_inverted", "-negative", "_invert"]))
    return cb.Task(
        description=f"The image ~/{meta['path']} is open in GIMP. Invert its colours (each red, green and blue "
        f"value v becomes 255 - v, as a photographic negative) and export the result as a PNG file "
        f"~/{meta['out']}. Leave the original file as it is.",
        metadata=meta,
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await setup_edit(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await png_holds(task, session, 255 - draw(as_picture(task.metadata["picture"])))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await edited_png(session, task.metadata, "invert")


@cb.wrong_way
async def inverts_linear_light(task: cb.Task, session: cb.Session) -> None:
    """Colors > Linear Invert: the inverse in linear light, not 255 - v."""
    await edited_png(session, task.metadata, "linear-invert")


@cb.wrong_way
async def inverts_value_only(task: cb.Task, session: cb.Session) -> None:
    """Colors > Value Invert: the brightness inverted, the hue kept."""
    await edited_png(session, task.metadata, "value-invert")


@cb.wrong_way
async def exports_uninverted(task: cb.Task, session: cb.Session) -> None:
    """Exported under the new name without the invert."""
    await edited_png(session, task.metadata, None)
