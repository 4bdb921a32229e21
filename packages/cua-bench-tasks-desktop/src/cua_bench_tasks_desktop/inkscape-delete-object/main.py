"""inkscape-delete-object: delete one object (named by its id and label) of a drawing open in
Inkscape, keep the others, then save the drawing.

The oracle selects the object in the Layers and Objects dialog (its label's row), deletes it (Edit >
Delete) and saves (File > Save), waiting for the title to lose its ``*``.
The evaluator reads the saved file with lxml (``_inkscape.read_saved``): saved by Inkscape as
Inkscape SVG, the page as it was, no element with the object's id, every other element with the
same attributes in the same order, and no element more; and no other file under home changed
(Inkscape's profile aside; the drawing's previous version beside it included).
Wrong ways: ``deletes_the_neighbour`` (the next object instead), ``hides_it`` (Object Properties'
Hide: the object stays, with ``display:none``) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._inkscape import (
    PAGES,
    as_shapes,
    delete_selected,
    folder_and_name,
    hide_selected,
    open_seeded,
    save,
    saved_drawing_score,
    seed_shapes,
    seeded_problems,
    select,
)

NAME = "inkscape-delete-object"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = folder_and_name(rng)
    width, height = rng.choice(PAGES)
    shapes = seed_shapes(rng, width, height, rng.randint(3, 5))
    target = rng.randrange(len(shapes))
    shape = shapes[target]
    return cb.Task(
        description=f"The drawing ~/{path} is open in Inkscape. Delete the object with the id '{shape.id}' "
        f"(labelled '{shape.label}'), keep every other object as it is, and save the drawing (Inkscape SVG, "
        "same file).",
        metadata={"path": path, "width": width, "height": height, "shapes": [s.as_json() for s in shapes],
                  "target": target},
        max_steps=15,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    target = as_shapes(meta["shapes"])[meta["target"]].id
    return await saved_drawing_score(
        task, session, lambda drawing: seeded_problems(drawing, meta, lambda e: None if e.id == target else e)
    )


async def _delete(task: cb.Task, session: cb.Session, *, index: int | None = None, hide: bool = False,
                  saved: bool = True) -> None:  # fmt: skip
    meta = task.metadata
    shape = as_shapes(meta["shapes"])[meta["target"] if index is None else index]
    await select(session, shape)
    if hide:
        await hide_selected(session)
    else:
        await delete_selected(session)
    if saved:
        await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _delete(task, session)


@cb.wrong_way
async def deletes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The next object (the first, after the last) deleted instead."""
    meta = task.metadata
    await _delete(task, session, index=(meta["target"] + 1) % len(meta["shapes"]))


@cb.wrong_way
async def hides_it(task: cb.Task, session: cb.Session) -> None:
    """The object hidden (Object Properties' Hide), not deleted: it stays in the file, unseen."""
    await _delete(task, session, hide=True)


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The object deleted on the canvas, the drawing never saved."""
    await _delete(task, session, saved=False)
