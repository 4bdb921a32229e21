"""inkscape-fill-color: give one object of a drawing open in Inkscape a new flat fill colour (named
by its id and label), then save the drawing.

The drawing has three to five shapes side by side, each with its own fill. The oracle selects the
object in the Layers and Objects dialog (its label's row; the toolbar's X, Y, W and H then show its
box), opens Fill and Stroke (Object menu), types the colour into the Fill tab's RGBA field and saves
(File > Save), waiting for the title to lose its ``*``.
The evaluator reads the saved file with lxml (``_inkscape.read_saved``): saved by Inkscape as
Inkscape SVG, the page as it was, the object's style the seed's with the new fill (the CSS initial
values Inkscape writes out, such as ``fill-opacity:1``, count as unset), every other element with
the same attributes, and no element more; and no other file under home changed
(Inkscape's profile aside; the drawing's previous version beside it included).
Wrong ways: ``recolours_the_neighbour`` (the next object gets the colour), ``sets_the_stroke`` (the
colour as the object's stroke paint, its fill left) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._inkscape import (
    COLOURS,
    PAGES,
    as_shapes,
    folder_and_name,
    open_seeded,
    save,
    saved_drawing_score,
    seed_shapes,
    seeded_problems,
    select,
    set_paint,
    target_changed,
)

NAME = "inkscape-fill-color"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = folder_and_name(rng)
    width, height = rng.choice(PAGES)
    shapes = seed_shapes(rng, width, height, rng.randint(3, 5))
    target = rng.randrange(len(shapes))
    colour = rng.choice(sorted(set(COLOURS) - {shape.fill for shape in shapes}))
    shape = shapes[target]
    return cb.Task(
        description=f"The drawing ~/{path} is open in Inkscape. Change the fill of the object with the id "
        f"'{shape.id}' (labelled '{shape.label}') to the flat colour {colour}, leave everything else as it is, "
        "and save the drawing (Inkscape SVG, same file).",
        metadata={"path": path, "width": width, "height": height, "shapes": [s.as_json() for s in shapes],
                  "target": target, "colour": colour},
        max_steps=20,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    recoloured = target_changed(meta, style=f"fill:{meta['colour']};stroke:none")
    return await saved_drawing_score(task, session, lambda drawing: seeded_problems(drawing, meta, recoloured))


async def _paint(task: cb.Task, session: cb.Session, *, index: int | None = None, stroke: bool = False,
                 saved: bool = True) -> None:  # fmt: skip
    meta = task.metadata
    shapes = as_shapes(meta["shapes"])
    shape = shapes[meta["target"] if index is None else index]
    await select(session, shape)
    await set_paint(session, meta["colour"], stroke=stroke)
    if saved:
        await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _paint(task, session)


@cb.wrong_way
async def recolours_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The next object (the one before, for the last) gets the colour."""
    meta = task.metadata
    count = len(meta["shapes"])
    await _paint(task, session, index=(meta["target"] + 1) % count)


@cb.wrong_way
async def sets_the_stroke(task: cb.Task, session: cb.Session) -> None:
    """The colour set as the object's stroke paint (Fill and Stroke's second tab); its fill left."""
    await _paint(task, session, stroke=True)


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The fill changed on the canvas, the drawing never saved."""
    await _paint(task, session, saved=False)
