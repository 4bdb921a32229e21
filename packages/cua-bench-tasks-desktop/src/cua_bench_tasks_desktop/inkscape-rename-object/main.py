"""inkscape-rename-object: give one object of a drawing open in Inkscape a new id and a new label
(Object Properties), then save the drawing.

The oracle selects the object in the Layers and Objects dialog (its label's row), opens Object
Properties (Object menu), types the new id and label into its ID and Label fields, clicks Set and
saves (File > Save), waiting for the title to lose its ``*``.
The evaluator reads the saved file with lxml (``_inkscape.read_saved``): saved by Inkscape as
Inkscape SVG, the page as it was, no element with the old id, the element with the new id the
seed's object (same tag, geometry and style, in its place) with the new ``inkscape:label``, every
other element as it was and no element more; and no other file under home changed
(Inkscape's profile aside; the drawing's previous version beside it included).
Wrong ways: ``label_only`` (the label set, the id left), ``renames_the_neighbour`` (the next object
gets the id and label) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import ADJECTIVES, NOUNS, OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._inkscape import (
    INKSCAPE,
    PAGES,
    as_shapes,
    folder_and_name,
    open_seeded,
    save,
    saved_drawing_score,
    seed_shapes,
    seeded_problems,
    select,
    set_id_and_label,
    target_changed,
)

NAME = "inkscape-rename-object"
WAIVED = OUTPUT_IS_THE_WORK
LABEL = f"{{{INKSCAPE}}}label"


def build(rng: random.Random) -> cb.Task:
    path = folder_and_name(rng)
    width, height = rng.choice(PAGES)
    shapes = seed_shapes(rng, width, height, rng.randint(3, 5))
    target = rng.randrange(len(shapes))
    taken = {shape.id for shape in shapes}
    noun = rng.choice([n for n in NOUNS if n not in taken and n.isalpha()])
    adjective = rng.choice(ADJECTIVES)
    new_id = f"{adjective}-{noun}"
    label = f"{adjective.capitalize()} {noun} {rng.randint(2, 9)}"
    shape = shapes[target]
    return cb.Task(
        description=f"The drawing ~/{path} is open in Inkscape. Give the object with the id '{shape.id}' the new "
        f"id '{new_id}' and the label '{label}' (Object Properties), leave everything else as it is, and save "
        "the drawing (Inkscape SVG, same file).",
        metadata={"path": path, "width": width, "height": height, "shapes": [s.as_json() for s in shapes],
                  "target": target, "id": new_id, "label": label},
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
    renamed = target_changed(meta, **{"id": meta["id"], LABEL: meta["label"]})
    return await saved_drawing_score(task, session, lambda drawing: seeded_problems(drawing, meta, renamed))


async def _rename(task: cb.Task, session: cb.Session, *, index: int | None = None, id_: bool = True,
                  saved: bool = True) -> None:  # fmt: skip
    meta = task.metadata
    shape = as_shapes(meta["shapes"])[meta["target"] if index is None else index]
    await select(session, shape)
    await set_id_and_label(session, meta["id"] if id_ else None, meta["label"])
    if saved:
        await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _rename(task, session)


@cb.wrong_way
async def label_only(task: cb.Task, session: cb.Session) -> None:
    """The new label set, the id left as it was."""
    await _rename(task, session, id_=False)


@cb.wrong_way
async def renames_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The next object (the first, after the last) gets the new id and label."""
    meta = task.metadata
    await _rename(task, session, index=(meta["target"] + 1) % len(meta["shapes"]))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Id and label set, the drawing never saved."""
    await _rename(task, session, saved=False)
