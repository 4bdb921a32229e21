"""blender-render-resolution: set the render resolution of the Blender scene open on the screen, and
save the file.

The oracle clicks the Properties editor's Output tab, double-clicks its Resolution X field, types X,
Tab, Y and Enter (``_blender.edit_field``), then ctrl+s over the viewport and the wait for the
title's ``*`` to go.

The evaluator reads the saved file with Blender itself (``_blender.scored_blend``) and compares the
whole scene with the seed's with the resolution X and Y set: the resolution's percentage, the frame
range, the frame rate, the render engine and every object as they were; and no other file under home
changed.
Wrong ways: ``swaps_width_and_height``, ``sets_only_the_width`` and ``sets_the_percentage`` (the
resolution left, its % field set to the ratio of the asked width to the seed's, rounded).
Waived: ``forged-write`` (the .blend is the output asked for) and ``trailing-blank-lines`` (no text
output: ``_blender.WAIVERS``).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._blender import (
    RESOLUTIONS,
    WAIVERS,
    Spot,
    click,
    edit,
    edit_field,
    open_in_blender,
    save,
    scene,
    scored_blend,
    seed_of,
)
from cua_bench_tasks_desktop._common import act, loaders
from cua_core import Wait

NAME = "blender-render-resolution"
WAIVED = WAIVERS
OUTPUT_TAB = Spot(1073, 393)
RESOLUTION_X = Spot(1217, 388)
PERCENTAGE = Spot(1217, 428)
OTHERS = ((640, 480), (1080, 1080), (1080, 1920), (720, 1280), (3840, 2160))


def build(rng: random.Random) -> cb.Task:
    meta = scene(rng)
    seed = meta["scene"]["resolution"]
    sizes = [
        s for s in (*RESOLUTIONS, (640, 480), (1080, 1080), (1080, 1920), (720, 1280), (3840, 2160)) if list(s) != seed
    ]
    width, height = rng.choice(sizes)
    return cb.Task(
        description=f"The scene ~/{meta['path']} is open in Blender. Set its render resolution to {width} x "
        f"{height} pixels (X {width}, Y {height}, at 100%) and save the file under the same name. Change nothing else.",
        metadata={**meta, "resolution": [width, height]},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_in_blender(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    seed = seed_of(task)
    want = {**seed, "render": [*task.metadata["resolution"], *seed["render"][2:]]}
    return await scored_blend(task, session, want)


async def _set(task: cb.Task, session: cb.Session, spot: Spot, *values: int) -> None:
    await act(session, *click(session, OUTPUT_TAB), Wait(0.5))
    await edit(task, session, edit_field(session, spot, *(str(v) for v in values)))
    await save(task, session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _set(task, session, RESOLUTION_X, *task.metadata["resolution"])


@cb.wrong_way
async def swaps_width_and_height(task: cb.Task, session: cb.Session) -> None:
    """Y typed into X and X into Y."""
    width, height = task.metadata["resolution"]
    await _set(task, session, RESOLUTION_X, height, width)


@cb.wrong_way
async def sets_only_the_width(task: cb.Task, session: cb.Session) -> None:
    """X set, Y left as it was."""
    await _set(task, session, RESOLUTION_X, task.metadata["resolution"][0])


@cb.wrong_way
async def sets_the_percentage(task: cb.Task, session: cb.Session) -> None:
    """The resolution's % set to the asked width over the seed's (the pixels rendered, not the setting)."""
    meta = task.metadata
    percent = max(1, min(100, round(100 * meta["resolution"][0] / meta["scene"]["resolution"][0])))
    if percent == 100:
        percent = 50
    await _set(task, session, PERCENTAGE, percent)
