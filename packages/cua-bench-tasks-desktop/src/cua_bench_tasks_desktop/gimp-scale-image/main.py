"""gimp-scale-image: scale the image open in GIMP to a given size and export it as a PNG.

The sizes keep the seed's proportions, each side a whole number of pixels. The oracle runs Image >
Scale Image... from GIMP's command search (``_gimp.run_action``), types the new width into the
dialog's Width field (the chain keeps the height in proportion), checks the Height field reads the
asked height, clicks Scale, waits for the title to show the new size, then File > Export As
(shift+ctrl+e) under the new name and the PNG dialog's Export button, and waits for the file.

The evaluator reads the export with Pillow (``_gimp.exported``): a plain file with one link, a real
PNG (by content), RGB, exactly the asked size, and its pixels the seed's resampled to that size
(``_gimp.close_to`` against Pillow's bicubic resize: resamplers differ only along the rectangles'
edges); and no other file under home changed (the seed among them; GIMP's
profile and GTK 2's file chooser settings may change: ``_gimp.scored``).
Wrong ways: ``resizes_the_canvas`` (Image > Canvas Size to the asked size: a crop, not a scale),
``scales_to_the_other_factor`` (the asked height's number typed as the width, the chain keeping
the proportions: another size) and
``exports_unscaled``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._gimp import (
    PNG_DIALOG,
    WAIVERS,
    canvas_to,
    export_as,
    scale_to,
    scaled_problem,
    scored,
    seed,
    setup_edit,
    sizes_of,
)

NAME = "gimp-scale-image"
WAIVED = WAIVERS


def build(rng: random.Random) -> cb.Task:
    while True:
        meta = seed(rng, rng.choice(["_small", "-scaled", "_resized", "-thumb"]), square=False)
        sizes = sizes_of(meta)
        if sizes:
            break
    width, height = rng.choice(sizes)
    return cb.Task(
        description=f"The image ~/{meta['path']} is open in GIMP. Scale the image to {width}x{height} pixels "
        f"(width x height) and export the result as a PNG file ~/{meta['out']}. Leave the original file as it is.",
        metadata={**meta, "size": [width, height]},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await setup_edit(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, "PNG", lambda found: scaled_problem(task.metadata, found))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await scale_to(session, meta, *meta["size"])
    await export_as(session, meta["out"], PNG_DIALOG)


@cb.wrong_way
async def resizes_the_canvas(task: cb.Task, session: cb.Session) -> None:
    """Image > Canvas Size... to the asked size: the picture cropped (or padded), not scaled."""
    meta = task.metadata
    await canvas_to(session, meta, *meta["size"])
    await export_as(session, meta["out"], PNG_DIALOG)


@cb.wrong_way
async def scales_to_the_other_factor(task: cb.Task, session: cb.Session) -> None:
    """Scaled with the width's and the height's numbers swapped in proportion: the asked height
    typed as the width (another size, the proportions kept)."""
    meta = task.metadata
    await scale_to(session, meta, meta["size"][1], None)
    await export_as(session, meta["out"], PNG_DIALOG)


@cb.wrong_way
async def exports_unscaled(task: cb.Task, session: cb.Session) -> None:
    """Exported under the new name without the scaling."""
    await export_as(session, task.metadata["out"], PNG_DIALOG)
