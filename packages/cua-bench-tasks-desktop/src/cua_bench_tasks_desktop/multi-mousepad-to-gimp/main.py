"""multi-mousepad-to-gimp: scale the image open in GIMP to the size a note open in Mousepad gives
for one use, and export it as a PNG (two apps: the note behind, GIMP in front).

The note lists ``use: WIDTHxHEIGHT`` lines, every size in the image's proportions; the task names
one use. The oracle plays gimp-scale-image's moves with that line's size: Image > Scale Image...
from GIMP's command search, the width typed (the chain keeps the height), Scale, then File > Export
As and the PNG dialog's Export button.

The evaluator is gimp-scale-image's: the export a plain file with one link, a real RGB PNG of
exactly that size whose pixels are the seed's resampled (``_gimp.scaled_problem``); and no other
file under home changed (the seed and the note among them;
GIMP's profile and GTK 2's file chooser settings may change: ``_gimp.scored``).
Wrong ways: ``the_line_below`` (the next use's size), ``resizes_the_canvas`` (Canvas Size to the
right size: a crop, not a scale) and ``exports_unscaled``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import file_title, loaders, start, write_files
from cua_bench_tasks_desktop._gimp import (
    PNG_DIALOG,
    WAIVERS,
    as_picture,
    canvas_to,
    draw,
    export_as,
    open_in_gimp,
    png_bytes,
    scale_to,
    scaled_problem,
    scored,
    seed,
    sizes_of,
)

NAME = "multi-mousepad-to-gimp"
WAIVED = WAIVERS
USES = ("thumbnail", "preview", "banner", "card", "gallery", "sidebar", "newsletter", "print proof")
NOTES = ("notes", "Documents", "todo")


def build(rng: random.Random) -> cb.Task:
    while True:
        meta = seed(rng, rng.choice(["_small", "-web", "_sized"]), square=False)
        sizes = sizes_of(meta)
        if len(sizes) >= 3:
            break
    lines = [[use, *size] for use, size in zip(rng.sample(USES, 3), rng.sample(sizes, 3), strict=True)]
    pick = rng.randrange(len(lines))
    note = f"{rng.choice(NOTES)}/sizes_{rng.randint(1, 99)}.txt"
    use, width, height = lines[pick]
    return cb.Task(
        description=f"The note ~/{note} (open in Mousepad, behind GIMP) lists the sizes an image is needed at, "
        f"one 'use: WIDTHxHEIGHT' line each. Scale the image ~/{meta['path']} open in GIMP to the size the note "
        f"gives for '{use}' and export the result as a PNG file ~/{meta['out']}. Leave the original file as it is.",
        metadata={**meta, "note": note, "lines": lines, "pick": pick, "size": [width, height]},
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def note_text(meta: Meta) -> str:
    return "Image sizes\n\n" + "".join(f"{use}: {width}x{height}\n" for use, width, height in meta["lines"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {meta["note"]: note_text(meta)})
    await start(session, "mousepad", meta["note"], title=file_title(meta["note"], "Mousepad"))
    await open_in_gimp(task, session, {meta["path"]: png_bytes(draw(as_picture(meta["picture"])))}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, "PNG", lambda found: scaled_problem(task.metadata, found))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await scale_to(session, meta, *meta["size"])
    await export_as(session, meta["out"], PNG_DIALOG)


@cb.wrong_way
async def the_line_below(task: cb.Task, session: cb.Session) -> None:
    """The size of the use on the next line (the first for the last): another size."""
    meta = task.metadata
    _, width, height = meta["lines"][(meta["pick"] + 1) % len(meta["lines"])]
    await scale_to(session, meta, width, height)
    await export_as(session, meta["out"], PNG_DIALOG)


@cb.wrong_way
async def resizes_the_canvas(task: cb.Task, session: cb.Session) -> None:
    """Image > Canvas Size... to the right size: the picture cropped (or padded), not scaled."""
    meta = task.metadata
    await canvas_to(session, meta, *meta["size"])
    await export_as(session, meta["out"], PNG_DIALOG)


@cb.wrong_way
async def exports_unscaled(task: cb.Task, session: cb.Session) -> None:
    """Exported under the new name without the scaling."""
    await export_as(session, task.metadata["out"], PNG_DIALOG)
