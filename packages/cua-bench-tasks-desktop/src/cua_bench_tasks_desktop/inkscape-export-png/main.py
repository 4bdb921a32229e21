"""inkscape-export-png: export the page of a drawing open in Inkscape as a PNG of a given width
(the Export dialog), leaving the drawing's file as it is.

The oracle opens Export (the toolbar's button), picks the Page area, types the width into the image
size's Width field and the PNG's full path into the file name field, clicks Export and waits for the
file to be a whole PNG.
The evaluator reads the PNG with Pillow: a real PNG (a plain file with one link), the asked width
and the page's height at that scale, and at the middle of each shape the shape's fill (so the page,
not the drawing's bounding box, was exported, at that scale), the page's corner transparent (the
seed's page is transparent); the drawing's file unchanged, and no other file under home changed
(Inkscape's profile aside; the drawing's previous version beside it included).
Wrong ways: ``default_size`` (the page at Inkscape's default 96 dpi: the page's own size),
``drawing_area`` (the Document area: the shapes' bounding box, not the page) and ``other_name``
(the PNG under the drawing's own name, ``NAME.png``).
"""

from __future__ import annotations

import io
import random

from PIL import Image, UnidentifiedImageError

import cua_bench as cb
from cua_bench_tasks_desktop._common import files_since_setup, loaders
from cua_bench_tasks_desktop._inkscape import (
    PAGES,
    Shape,
    as_shapes,
    export_png,
    folder_and_name,
    open_seeded,
    seed_shapes,
    unchanged_but_profile,
)
from cua_core import CuaError

NAME = "inkscape-export-png"
WAIVED = {
    "forged-write": "the PNG the evaluator reads is the output the instruction asks for: writing it with the "
    "right pixels is the work, whoever's hands write it (the adversary's other mutations still apply)"
}
MAX_PNG = 32 << 20
TOLERANCE = 3
"""How far (per channel, 0-255) a shape's middle may be from its fill: the PNG filter is lossless, Inkscape's
colour management is off, so only rounding."""


def _widths(width: int, height: int) -> list[int]:
    """Export widths between 200 and 1600 px whose height at that scale is a whole number, but the page's own."""
    return [w for w in range(200, 1601, 10) if w * height % width == 0 and w != width]


def build(rng: random.Random) -> cb.Task:
    path = folder_and_name(rng)
    width, height = rng.choice(PAGES)
    shapes = seed_shapes(rng, width, height, rng.randint(3, 5))
    export_width = rng.choice(_widths(width, height))
    png = f"{path.removesuffix('.svg')}_{rng.choice(['web', 'preview', 'print', 'small', 'large'])}.png"
    return cb.Task(
        description=f"The drawing ~/{path} is open in Inkscape. Export its whole page (the page area, not just "
        f"the drawing) as a PNG image {export_width} px wide to ~/{png} (Inkscape's Export dialog). Leave the "
        "drawing's own file as it is.",
        metadata={"path": path, "width": width, "height": height, "shapes": [s.as_json() for s in shapes],
                  "png": png, "export_width": export_width},
        max_steps=20,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


def png_problems(data: bytes | None, width: int, height: int, page: tuple[int, int], shapes: list[Shape]) -> list[str]:
    """How the PNG in ``data`` misses the page (``page`` px, holding ``shapes``) exported ``width`` x ``height``."""
    if data is None:
        return ["no such file (or not a plain file with one link)"]
    if len(data) > MAX_PNG or not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return ["not a PNG"]
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != "PNG":
                return [f"a {image.format} image, not a PNG"]
            if image.size != (width, height):
                return [f"{image.size[0]} x {image.size[1]} px, not {width} x {height}"]
            pixels = image.convert("RGBA")
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError) as exc:
        return [f"not a readable PNG ({type(exc).__name__})"]
    scale = width / page[0]
    problems = []
    for shape in shapes:
        cx, cy = shape.centre()
        got = pixels.getpixel((int(cx * scale), int(cy * scale)))
        want = (*tuple(int(shape.fill[i : i + 2], 16) for i in (1, 3, 5)), 255)
        if not isinstance(got, tuple) or any(abs(g - w) > TOLERANCE for g, w in zip(got, want, strict=True)):
            problems.append(f"the middle of {shape.id} is {got}, not its fill {want}")
    corner = pixels.getpixel((1, 1))
    if not isinstance(corner, tuple) or corner[3] != 0:
        problems.append(f"the page's corner is {corner}, not transparent")
    return problems


async def _png(task: cb.Task, session: cb.Session, path: str) -> bytes | None:
    """The PNG at ``~/path`` when it is a plain file with one link (as the end state's snapshot has it)."""
    _, after = await files_since_setup(task, session)
    state = after.get(path)
    if state is None or state.kind != "file" or state.links != 1:
        return None
    try:
        return bytes(await session.read_bytes(path))
    except (OSError, CuaError, ValueError):
        return None


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    width = meta["export_width"]
    height = width * meta["height"] // meta["width"]
    data = await _png(task, session, meta["png"])
    problems = png_problems(data, width, height, (meta["width"], meta["height"]), as_shapes(meta["shapes"]))
    for problem in problems:
        task.explain(f"{meta['png']}: {problem}")
    return [1.0 if not problems and await unchanged_but_profile(task, session, [meta["png"]]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await export_png(session, meta["png"], meta["export_width"])


@cb.wrong_way
async def default_size(task: cb.Task, session: cb.Session) -> None:
    """The page exported at Inkscape's default 96 dpi: the page's own width, not the asked one."""
    meta = task.metadata
    await export_png(session, meta["png"], None)


@cb.wrong_way
async def drawing_area(task: cb.Task, session: cb.Session) -> None:
    """The Document area (the shapes' bounding box) exported at the asked width, not the page."""
    meta = task.metadata
    await export_png(session, meta["png"], meta["export_width"], area="Document")


@cb.wrong_way
async def other_name(task: cb.Task, session: cb.Session) -> None:
    """The page exported at the asked width, under the drawing's name with .png (Inkscape's suggestion)."""
    meta = task.metadata
    await export_png(session, meta["path"].removesuffix(".svg") + ".png", meta["export_width"])
