"""inkscape-page-size: set the page size of a drawing open in Inkscape (Document Properties), in
px, keeping its scale (one user unit per px), then save the drawing.

The oracle opens Document Properties (File menu; a window of its own), types the width and the height
into its page size fields (px, the drawing's units) and saves (File > Save), waiting for the title to
lose its ``*``.
The evaluator reads the saved file with lxml (``_inkscape.read_saved``): saved by Inkscape as
Inkscape SVG, the root's width and height the asked sizes (``600`` or ``600px``), its viewBox
``0 0 W H`` (the scale kept), every other attribute of the root and every element as they were
(the shapes where they were), and no element more; and no other file under home changed
(Inkscape's profile aside; the drawing's previous version beside it included).
Wrong ways: ``swaps_width_and_height`` (the other orientation), ``width_only`` (the height left)
and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._inkscape import (
    PAGES,
    Drawing,
    as_shapes,
    drawing_problems,
    expected_elements,
    folder_and_name,
    open_seeded,
    save,
    saved_drawing_score,
    seed_root,
    seed_shapes,
    set_page_size,
)

NAME = "inkscape-page-size"
WAIVED = OUTPUT_IS_THE_WORK
SIZES = (500, 540, 620, 660, 700, 750, 800, 840, 900, 960)


def build(rng: random.Random) -> cb.Task:
    path = folder_and_name(rng)
    width, height = rng.choice(PAGES)
    shapes = seed_shapes(rng, width, height, rng.randint(3, 5))
    new_width = rng.choice([size for size in SIZES if size != width])
    new_height = rng.choice([size for size in SIZES if size not in (height, new_width)])
    return cb.Task(
        description=f"The drawing ~/{path} is open in Inkscape. Make its page {new_width} px wide and "
        f"{new_height} px high (Document Properties), keeping the drawing's scale (one user unit per px) and "
        "every object where it is, and save the drawing (Inkscape SVG, same file).",
        metadata={"path": path, "width": width, "height": height, "shapes": [s.as_json() for s in shapes],
                  "new_width": new_width, "new_height": new_height},
        max_steps=20,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


def _px(value: str | None) -> float | None:
    """A length in px ("600", "600px", "600.0"); None for anything else (another unit, no number)."""
    if value is None:
        return None
    try:
        return float(value.removesuffix("px"))
    except ValueError:
        return None


def _viewbox(value: str | None) -> list[float] | None:
    try:
        return [float(part) for part in (value or "").replace(",", " ").split()]
    except ValueError:
        return None


def page_problems(drawing: Drawing, width: int, height: int) -> list[str]:
    """How the saved root's size and viewBox miss ``width`` x ``height`` px at one user unit per px."""
    problems = []
    got = (_px(drawing.root.get("width")), _px(drawing.root.get("height")))
    if got != (float(width), float(height)):
        problems.append(
            f"the page is {drawing.root.get('width')} x {drawing.root.get('height')}, not {width} x {height} px"
        )
    box = _viewbox(drawing.root.get("viewBox"))
    if box != [0.0, 0.0, float(width), float(height)]:
        problems.append(f"the viewBox is {drawing.root.get('viewBox')!r}, not '0 0 {width} {height}'")
    return problems


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    root = seed_root(meta["width"], meta["height"])
    # The size is judged by its numbers (page_problems); the root's other attributes must be as they were.
    size = {"width", "height", "viewBox"}

    def problems(drawing: Drawing) -> list[str]:
        rest = Drawing({k: v for k, v in drawing.root.items() if k not in size}, drawing.elements,
                       drawing.inkscape_version, drawing.tail)  # fmt: skip
        return page_problems(drawing, meta["new_width"], meta["new_height"]) + drawing_problems(
            rest, {k: v for k, v in root.items() if k not in size}, expected_elements(as_shapes(meta["shapes"]))
        )

    return await saved_drawing_score(task, session, problems)


async def _resized(task: cb.Task, session: cb.Session, width: int, height: int | None, *, saved: bool = True) -> None:
    await set_page_size(session, width, height)
    if saved:
        await save(session, task.metadata["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _resized(task, session, meta["new_width"], meta["new_height"])


@cb.wrong_way
async def swaps_width_and_height(task: cb.Task, session: cb.Session) -> None:
    """The page made H wide and W high (the other orientation)."""
    meta = task.metadata
    await _resized(task, session, meta["new_height"], meta["new_width"])


@cb.wrong_way
async def width_only(task: cb.Task, session: cb.Session) -> None:
    """The width set, the height left as it was."""
    await _resized(task, session, task.metadata["new_width"], None)


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The page resized on the screen, the drawing never saved."""
    meta = task.metadata
    await _resized(task, session, meta["new_width"], meta["new_height"], saved=False)
