"""vlc-take-snapshot: take a snapshot of the frame at a given second of the video open in VLC.

Setup makes an eight-second video of flat colours, one a second (``_vlc.colour_video``), and starts
VLC playing it to its end, where it pauses (``--play-and-pause``). The oracle jumps to the asked second
with Playback > Jump to Specific Time (ctrl+t), waits for the elapsed time to show it, then Video >
Take Snapshot (shift+s), and waits for the snapshot in home.

The evaluator reads the snapshot with Pillow (``_vlc.read_picture``): exactly one new file in home,
named as VLC names snapshots (``vlcsnap-*.png``), a plain file with one link, a real PNG by its content,
of the video's size, flat with the colour the video shows at that second (``_vlc.colour_of``: every
second has its own colour, far from the others); and no other file under home changed (the video among
them; VLC's own ``OWN`` files may).
Wrong ways: ``snapshot_of_the_last_frame`` (no jump: the frame VLC paused on), ``one_second_late`` (the
frame a second after the asked one).
Waived: ``trailing-blank-lines`` (the output is binary; the only text files that change are VLC's own, ``OWN``)
and ``forged-write`` (``OUTPUT_IS_THE_WORK``: the snapshot is the asked output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    files_since_setup,
    loaders,
    output_bytes,
    press,
    wait_for,
)
from cua_bench_tasks_desktop._vlc import (
    BINARY_WAIVERS,
    COLOURS,
    colour_of,
    only_changed,
    open_video_at_end,
    read_picture,
    seek,
)

NAME = "vlc-take-snapshot"
WAIVED = BINARY_WAIVERS
SECONDS = 8
SIZES = ((320, 240), (400, 300), (480, 270), (360, 240))


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(["Videos", "clips", "Movies"])
    path = f"{folder}/{rng.choice(['test-card', 'colours', 'bars', 'calibration'])}-{rng.randint(1, 99)}.avi"
    second = rng.randint(1, SECONDS - 3)
    return cb.Task(
        description=f"The video ~/{path} is open in VLC, paused at its end. Take a snapshot (Video > Take "
        f"Snapshot) of the frame shown at 0:{second:02d}, where each second of the video has its own colour. VLC "
        "saves snapshots in your home folder as vlcsnap-....png; take just this one.",
        metadata={
            "path": path,
            "second": second,
            "colours": rng.sample(sorted(COLOURS), SECONDS),
            "size": list(rng.choice(SIZES)),
        },
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_video_at_end(task, session, task.metadata, SECONDS)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    new = [p for p in after if p not in before and "/" not in p and p.startswith("vlcsnap-")]
    if len(new) != 1:
        task.explain(f"{len(new)} snapshots in home ({new[:4]}), not one")
        return [0.0]
    found = read_picture(await output_bytes(session, after, new[0]), "PNG")
    if isinstance(found, str):
        task.explain(f"{new[0]}: {found}")
        return [0.0]
    if list(found.size) != meta["size"]:
        task.explain(f"{new[0]}: {found.size[0]}x{found.size[1]}, not the video's {meta['size']}")
        return [0.0]
    want = meta["colours"][meta["second"]]
    if colour_of(found) != want:
        task.explain(f"{new[0]} shows {colour_of(found) or 'no one colour'}, not {want} (0:{meta['second']:02d})")
        return [0.0]
    return [1.0 if only_changed(task, before, after, [new[0]]) else 0.0]


async def _snapshot(session: cb.Session, second: int | None) -> None:
    if second is not None:
        await seek(session, second)
    before = await session.run_command("ls -1 | grep -c '^vlcsnap-'", timeout=10)
    await press(session, "shift+s")

    async def taken() -> bool:
        now = await session.run_command("ls -1 | grep -c '^vlcsnap-'", timeout=10)
        return now.stdout.strip() != before.stdout.strip()

    await wait_for(taken, "the snapshot")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _snapshot(session, task.metadata["second"])


@cb.wrong_way
async def snapshot_of_the_last_frame(task: cb.Task, session: cb.Session) -> None:
    """No jump: the snapshot of the frame VLC paused on at the end."""
    await _snapshot(session, None)


@cb.wrong_way
async def one_second_late(task: cb.Task, session: cb.Session) -> None:
    """The snapshot of the frame a second after the asked one."""
    await _snapshot(session, task.metadata["second"] + 1)
