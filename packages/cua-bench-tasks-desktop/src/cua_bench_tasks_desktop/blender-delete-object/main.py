"""blender-delete-object: delete one object of the Blender scene open on the screen, and save the file.

The oracle clicks the object's row in the Outliner (``_blender.pick``), moves the pointer over the 3D
viewport, presses Delete (Object > Delete, no confirmation), then ctrl+s and the wait for the title's
``*`` to go.

The evaluator reads the saved file with Blender itself (``_blender.scored_blend``: a plain file with one
link beginning ``BLENDER-v304``, dumped by ``blender -b`` without the file's scripts) and compares the
whole scene with the seed's without that object and its mesh (a mesh left with no user is not saved):
every other object, mesh, transform, modifier, render setting and data count as they were; and no
other file under home changed.
Wrong ways: ``hides_it`` (H, Hide: still in the file, hidden in the view layer), ``deletes_the_next_object``
and ``deletes_without_saving``.
Waived: ``forged-write`` (the .blend is the output asked for) and ``trailing-blank-lines`` (no text
output: ``_blender.WAIVERS``).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._blender import (
    WAIVERS,
    mesh_objects,
    next_object,
    open_in_blender,
    pick,
    save,
    scene,
    scored_blend,
    seed_of,
    to_viewport,
    without_object,
)
from cua_bench_tasks_desktop._common import act, key, loaders

NAME = "blender-delete-object"
WAIVED = WAIVERS


def build(rng: random.Random) -> cb.Task:
    meta = scene(rng)
    name = rng.choice(mesh_objects(meta))
    return cb.Task(
        description=f'The scene ~/{meta["path"]} is open in Blender. Delete the object "{name}" from the scene '
        f"and save the file under the same name. Keep every other object as it is.",
        metadata={**meta, "name": name},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_in_blender(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored_blend(task, session, without_object(seed_of(task), task.metadata["name"]))


async def _delete(task: cb.Task, session: cb.Session, name: str, combo: str = "delete", saved: bool = True) -> None:
    await pick(task, session, name)
    await act(session, to_viewport(session), key(combo))
    if saved:
        await save(task, session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _delete(task, session, task.metadata["name"])


@cb.wrong_way
async def hides_it(task: cb.Task, session: cb.Session) -> None:
    """H (Hide Selected): out of sight, still in the scene."""
    await _delete(task, session, task.metadata["name"], "h")


@cb.wrong_way
async def deletes_the_next_object(task: cb.Task, session: cb.Session) -> None:
    """The object after the asked one in the Outliner deleted (the one before, for the last)."""
    await _delete(task, session, next_object(task.metadata, task.metadata["name"]))


@cb.wrong_way
async def deletes_without_saving(task: cb.Task, session: cb.Session) -> None:
    """Deleted in Blender, never saved."""
    await _delete(task, session, task.metadata["name"], saved=False)
