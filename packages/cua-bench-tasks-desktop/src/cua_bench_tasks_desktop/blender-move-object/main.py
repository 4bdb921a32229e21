"""blender-move-object: put one object of the Blender scene at an exact location, and save the file.

The oracle clicks the object's row in the Outliner (``_blender.pick``), moves the pointer over the 3D
viewport, presses alt+G (Clear Location: the object at the origin), then for each axis G, the axis
letter, the value typed and Enter (a move by exactly that much along it), then ctrl+s and the wait
for the title's ``*`` to go.

The evaluator reads the saved file with Blender itself (``_blender.scored_blend``) and compares the
whole scene with the seed's with that object's location (and its world matrix's translation) set to
the asked one, to 0.0001 m: its rotation, scale, mesh and every other object as they were; and no
other file under home changed.
Wrong ways: ``moves_by_the_offset`` (G with the values typed but no alt+G first: the numbers added
to where it was), ``swaps_y_and_z`` and ``moves_the_next_object``.
Waived: ``forged-write`` (the .blend is the output asked for) and ``trailing-blank-lines`` (no text
output: ``_blender.WAIVERS``).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._blender import (
    WAIVERS,
    mesh_objects,
    moved_to,
    next_object,
    open_in_blender,
    pick,
    save,
    scene,
    scored_blend,
    seed_of,
    to_viewport,
    typed,
    with_object,
)
from cua_bench_tasks_desktop._common import act, key, loaders
from cua_core import Action, Wait

NAME = "blender-move-object"
WAIVED = WAIVERS


def _value(rng: random.Random, low: float, high: float) -> float:
    return rng.choice([v / 4 for v in range(int(low * 4), int(high * 4) + 1) if v % 4])


def build(rng: random.Random) -> cb.Task:
    meta = scene(rng)
    name = rng.choice(mesh_objects(meta))
    target = [_value(rng, -6, 6), _value(rng, -6, 6), _value(rng, 0.25, 3)]
    shown = ", ".join(f"{v:g}" for v in target)
    return cb.Task(
        description=f'The scene ~/{meta["path"]} is open in Blender. Move the object "{name}" so that its '
        f"location is exactly X, Y, Z = {shown} (metres, in world space) and save the file under the same "
        f"name. Change nothing else.",
        metadata={**meta, "name": name, "location": target},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_in_blender(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    want = with_object(seed_of(task), meta["name"], lambda o: moved_to(o, meta["location"]))
    return await scored_blend(task, session, want)


async def _move(task: cb.Task, session: cb.Session, name: str, values: list[float], *, clear: bool = True) -> None:
    await pick(task, session, name)
    actions: list[Action] = [to_viewport(session), Wait(0.3)]
    if clear:
        actions += [key("alt+g"), Wait(0.3)]
    for axis, value in zip("xyz", values, strict=True):
        actions += [key("g"), Wait(0.3), key(axis), *typed(f"{value:g}"), Wait(0.2), key("enter"), Wait(0.3)]
    await act(session, *actions)
    await save(task, session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _move(task, session, task.metadata["name"], task.metadata["location"])


@cb.wrong_way
async def moves_by_the_offset(task: cb.Task, session: cb.Session) -> None:
    """G with the numbers typed, without clearing the location first: a move by them, from where it was."""
    meta = task.metadata
    await _move(task, session, meta["name"], meta["location"], clear=False)


@cb.wrong_way
async def swaps_y_and_z(task: cb.Task, session: cb.Session) -> None:
    """Y typed into Z and Z into Y."""
    x, y, z = task.metadata["location"]
    await _move(task, session, task.metadata["name"], [x, z, y])


@cb.wrong_way
async def moves_the_next_object(task: cb.Task, session: cb.Session) -> None:
    """The object after the asked one in the Outliner moved (the one before, for the last)."""
    await _move(task, session, next_object(task.metadata, task.metadata["name"]), task.metadata["location"])
