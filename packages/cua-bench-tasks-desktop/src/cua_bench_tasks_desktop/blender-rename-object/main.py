"""blender-rename-object: rename one object of the Blender scene open on the screen, and save the file.

The oracle clicks the object's row in the Outliner (``_blender.pick``: it becomes the active object),
moves the pointer over the 3D viewport, presses F2 (Rename Active Item), types the new name over the
old one and Enter, then ctrl+s and the wait for the title's ``*`` to go.

The evaluator reads the saved file with Blender itself (``_blender.saved_scene``: a plain file with one
link beginning ``BLENDER-v304``, dumped by ``blender -b`` without the file's scripts) and compares the
whole scene with the seed's with that one object renamed (``_blender.scene_problems``): every other
object, its mesh (F2 renames the object, not its mesh), transforms, modifiers, render settings and data
counts as they were; and no other file under home changed (``_blender.scored_blend``).
Wrong ways: ``renames_the_next_object`` (F2 on the object after it in the Outliner),
``renames_without_saving`` (the title keeps its ``*``: the file is the seed) and ``types_the_name_in_lowercase``.
Waived: ``forged-write`` (the .blend is the output asked for) and ``trailing-blank-lines`` (no text
output: ``_blender.WAIVERS``).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
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
    typed,
    with_object,
)
from cua_bench_tasks_desktop._common import NOUNS, act, key, loaders
from cua_core import Wait

NAME = "blender-rename-object"
WAIVED = WAIVERS
SUFFIXES = ("Main", "Old", "Left", "Right", "Top", "Base", "Final", "Hero")


def build(rng: random.Random) -> cb.Task:
    meta = scene(rng)
    old = rng.choice(mesh_objects(meta))
    taken = {n.lower() for n in mesh_objects(meta)}
    stem = rng.choice([n for n in NOUNS if n not in taken]).capitalize()
    new = f"{stem}{rng.choice(['_', '.', ''])}{rng.choice(SUFFIXES)}"
    return cb.Task(
        description=f'The scene ~/{meta["path"]} is open in Blender. Rename the object "{old}" to "{new}" '
        f"(the object, exactly that name) and save the file under the same name. Change nothing else.",
        metadata={**meta, "old": old, "new": new},
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
    want = with_object(seed_of(task), meta["old"], lambda o: {**o, "name": meta["new"]})
    return await scored_blend(task, session, want)


async def _rename(task: cb.Task, session: cb.Session, meta: Meta, old: str, new: str, *, saved: bool = True) -> None:
    await pick(task, session, old)
    await act(session, to_viewport(session), key("f2"), Wait(0.5), key("ctrl+a"), *typed(new), key("enter"))
    if saved:
        await save(task, session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _rename(task, session, meta, meta["old"], meta["new"])


@cb.wrong_way
async def renames_the_next_object(task: cb.Task, session: cb.Session) -> None:
    """F2 on the object after the asked one in the Outliner (the one before, for the last)."""
    meta = task.metadata
    await _rename(task, session, meta, next_object(meta, meta["old"]), meta["new"])


@cb.wrong_way
async def renames_without_saving(task: cb.Task, session: cb.Session) -> None:
    """Renamed in Blender, never saved."""
    meta = task.metadata
    await _rename(task, session, meta, meta["old"], meta["new"], saved=False)


@cb.wrong_way
async def types_the_name_in_lowercase(task: cb.Task, session: cb.Session) -> None:
    """The new name typed in lowercase."""
    meta = task.metadata
    await _rename(task, session, meta, meta["old"], meta["new"].lower())
