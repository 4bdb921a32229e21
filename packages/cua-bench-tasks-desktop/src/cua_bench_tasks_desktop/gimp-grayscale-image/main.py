"""gimp-grayscale-image: convert the image open in GIMP to grayscale mode and export it as a
single-channel PNG.

The oracle runs Image > Mode > Grayscale from GIMP's command search (``_gimp.run_action``), waits
for the title to say "Grayscale", then File > Export As (shift+ctrl+e) under the new name and the PNG dialog's Export
button, and waits for the file.

The evaluator reads the export with Pillow (``_gimp.exported``): a plain file with one link, a real
PNG (by content) of mode ``L`` (one grey channel), each pixel the seed's luminance within 2
(``_gimp.gray_of``: the sRGB primaries' weights on the linear light, as GIMP converts); and no other
file under home changed (the seed among them; GIMP's
profile and GTK 2's file chooser settings may change: ``_gimp.scored``).
Wrong ways: ``desaturates_in_rgb`` (Colors > Desaturate > Desaturate: grey pixels, but three
channels in an RGB file), ``averages_the_channels`` (Desaturate by the channels' average, then
Grayscale mode: other greys) and ``exports_in_colour``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import loaders, no_window, window
from cua_bench_tasks_desktop._gimp import (
    PNG_DIALOG,
    WAIVERS,
    Read,
    as_picture,
    choose_in_list,
    click_button,
    draw,
    export_as,
    gray_of,
    image_title,
    run_action,
    same_pixels,
    scored,
    seed,
    setup_edit,
)

NAME = "gimp-grayscale-image"
WAIVED = WAIVERS


def build(rng: random.Random) -> cb.Task:
    meta = seed(rng, rng.choice(["_gray", "-grey", "_bw", "-mono"]))
    return cb.Task(
        description=f"The image ~/{meta['path']} is open in GIMP. Convert the image to grayscale mode and export "
        f"it as a PNG file ~/{meta['out']}, a grayscale PNG with a single grey channel. Leave the original "
        "file as it is.",
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
    def problem(found: Read) -> str | None:
        if found.mode != "L":
            return f"mode {found.mode}, not L (one grey channel)"
        return same_pixels(found.pixels, gray_of(draw(as_picture(task.metadata["picture"]))), slack=2)

    return await scored(task, session, "PNG", problem)


async def _grayscale(session: cb.Session, meta: Meta) -> None:
    name = meta["path"].rsplit("/", 1)[-1]
    await run_action(session, "grayscale")
    await window(session, lambda title: image_title(name)(title) and "(Grayscale " in title)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _grayscale(session, meta)
    await export_as(session, meta["out"], PNG_DIALOG)


DESATURATE = "Desaturate"
MODES = ("Luminance", "Luma", "Lightness (HSL)", "Average (HSI Intensity)", "Value (HSV)")
"""The Desaturate dialog's Mode list, in its order."""


async def _desaturate(session: cb.Session, meta: Meta, mode: str) -> None:
    """Colors > Desaturate > Desaturate..., its Mode set to ``mode``, then OK."""
    await run_action(session, "desaturate")
    await window(session, DESATURATE)
    await choose_in_list(session, DESATURATE, MODES, mode)
    await click_button(session, "OK", DESATURATE)
    await no_window(session, DESATURATE)
    await window(session, image_title(meta["path"].rsplit("/", 1)[-1], dirty=True))


@cb.wrong_way
async def desaturates_in_rgb(task: cb.Task, session: cb.Session) -> None:
    """Colors > Desaturate (by luminance): the right greys, but still an RGB image, exported as RGB."""
    meta = task.metadata
    await _desaturate(session, meta, "Luminance")
    await export_as(session, meta["out"], PNG_DIALOG)


@cb.wrong_way
async def averages_the_channels(task: cb.Task, session: cb.Session) -> None:
    """Desaturate by the channels' average, then grayscale mode: one channel of the wrong greys."""
    meta = task.metadata
    await _desaturate(session, meta, "Average (HSI Intensity)")
    await _grayscale(session, meta)
    await export_as(session, meta["out"], PNG_DIALOG)


@cb.wrong_way
async def exports_in_colour(task: cb.Task, session: cb.Session) -> None:
    """Exported under the new name without the conversion."""
    await export_as(session, task.metadata["out"], PNG_DIALOG)
