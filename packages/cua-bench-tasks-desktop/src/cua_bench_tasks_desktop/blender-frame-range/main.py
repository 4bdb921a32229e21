"""blender-frame-range: set the frame range of the Blender scene open on the screen, and save the file.

The oracle double-clicks the Timeline's Start field, types the first frame, Tab, the last frame and
Enter (``_blender.edit_field``: Tab moves on to End), then ctrl+s over the viewport and the wait for
the title's ``*`` to go.

The evaluator reads the saved file with Blender itself (``_blender.scored_blend``) and compares the
whole scene with the seed's with the frame start and end set: the frame step, the render resolution
and every object as they were (the current frame is not saved in the dump: scrubbing the timeline is no
change); and no other file under home changed.
Wrong ways: ``sets_only_the_end``, ``end_one_frame_short`` and ``sets_the_current_frame`` (the
last frame typed into the current-frame field instead of End).
Waived: ``forged-write`` (the .blend is the output asked for) and ``trailing-blank-lines`` (no text
output: ``_blender.WAIVERS``).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._blender import (
    WAIVERS,
    Spot,
    edit,
    edit_field,
    open_in_blender,
    save,
    scene,
    scored_blend,
    seed_of,
)
from cua_bench_tasks_desktop._common import act, loaders

NAME = "blender-frame-range"
WAIVED = WAIVERS
START = Spot(920, 737)
END = Spot(1005, 737)
CURRENT = Spot(813, 737)


def build(rng: random.Random) -> cb.Task:
    meta = scene(rng)
    first = rng.randint(2, 60)
    last = rng.choice([n for n in range(first + 24, 600) if n != meta["scene"]["frames"][1]])
    return cb.Task(
        description=f"The scene ~/{meta['path']} is open in Blender. Make its animation run from frame {first} "
        f"to frame {last} (the scene's frame start and end) and save the file under the same name. "
        f"Change nothing else.",
        metadata={**meta, "frames": [first, last]},
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
    render = seed["render"]
    want = {**seed, "render": [*render[:3], *task.metadata["frames"], *render[5:]]}
    return await scored_blend(task, session, want)


async def _set(task: cb.Task, session: cb.Session, spot: Spot, *values: int) -> None:
    await edit(task, session, edit_field(session, spot, *(str(v) for v in values)))
    await save(task, session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _set(task, session, START, *task.metadata["frames"])


@cb.wrong_way
async def sets_only_the_end(task: cb.Task, session: cb.Session) -> None:
    """End set, Start left at 1."""
    await _set(task, session, END, task.metadata["frames"][1])


@cb.wrong_way
async def end_one_frame_short(task: cb.Task, session: cb.Session) -> None:
    """The last frame one short."""
    first, last = task.metadata["frames"]
    await _set(task, session, START, first, last - 1)


@cb.wrong_way
async def sets_the_current_frame(task: cb.Task, session: cb.Session) -> None:
    """Start set, and the last frame typed into the current-frame field instead of End."""
    first, last = task.metadata["frames"]
    await act(session, *edit_field(session, CURRENT, str(last)))
    await _set(task, session, START, first)
