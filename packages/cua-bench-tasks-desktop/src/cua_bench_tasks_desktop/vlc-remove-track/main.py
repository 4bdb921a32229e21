"""vlc-remove-track: remove one song from the playlist open in VLC and save the playlist as M3U.

Setup writes four to six WAVs (``_vlc.tone_wav``) to a folder of home and starts VLC with them in its
playlist (not playing). The oracle shows the playlist (View > Playlist, ctrl+l), clicks the asked
song's row, presses Delete, waits until the playlist no longer lists it, then Media > Save Playlist to
File... (ctrl+y) with the dialog's M3U type under the asked name, and waits for the file.

The evaluator reads the playlist as text (``_vlc.read_m3u``): a plain file with one link, an extended
M3U by its content (``#EXTM3U`` first: an XSPF under the ``.m3u`` name is not), ending as VLC ends it,
whose entries are exactly the seeded songs but the asked one, in the seeded order; and no other file
under home changed (the songs among them; VLC's own ``OWN`` files may).
Wrong ways: ``removes_the_next_song`` (the row below the asked one deleted), ``removes_nothing`` (the
whole playlist saved) and ``saved_as_xspf`` (the right list saved with the XSPF type, named ``.xspf``).
Waived: ``forged-write`` (``OUTPUT_IS_THE_WORK``: the playlist file is the asked output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench.nodes import center
from cua_bench_tasks_desktop._common import NOUNS, WORDS, act, key, loaders, wait_for
from cua_bench_tasks_desktop._vlc import (
    WAIVERS,
    home_path,
    node,
    open_vlc,
    pitches,
    read_m3u,
    save_playlist,
    scored,
    show_playlist,
    tone_wav,
    track_names,
    vlc_window,
)
from cua_core import Click

NAME = "vlc-remove-track"
WAIVED = WAIVERS
FOLDERS = ("Music", "podcasts", "audio", "Music/live")
M3U = "M3U playlist (*.m3u"
XSPF = "XSPF playlist (*.xspf)"


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    names: list[str] = []
    while len(names) < rng.randint(4, 6):
        name = f"{rng.choice(NOUNS)}_{rng.choice(WORDS)}.wav"
        if name not in names:
            names.append(name)
    gone = rng.randrange(len(names) - 1)
    out = f"{folder}/{rng.choice(['queue', 'party', 'morning', 'commute', 'chill'])}-{rng.randint(1, 99)}.m3u"
    return cb.Task(
        description=f"VLC's playlist holds the songs of ~/{folder}. Remove {names[gone]} from the playlist (and "
        f"only it), then save the playlist as an M3U playlist ~/{out} (Media > Save Playlist to File). The "
        "other songs must stay in their order.",
        metadata={"folder": folder, "names": names, "gone": gone, "out": out, "pitches": pitches(rng, len(names))},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await session.run_command(f"mkdir -p '{meta['folder']}'", timeout=20, check=True)
    paths = [f"{meta['folder']}/{name}" for name in meta["names"]]
    for path, pitch in zip(paths, meta["pitches"], strict=True):
        await session.write_bytes(path, tone_wav([pitch] * 6, rate=22050, channels=1))
    await open_vlc(task, session, "--no-playlist-autostart", *paths)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    folder = await home_path(session, meta["folder"])
    want = [f"{folder}/{name}" for index, name in enumerate(meta["names"]) if index != meta["gone"]]

    def problem(data: bytes | None) -> str | None:
        found = read_m3u(data, folder)
        if isinstance(found, str):
            return found
        return None if found == want else f"its entries are {found}, not {want}"

    return await scored(task, session, meta["out"], problem)


async def _remove_and_save(session: cb.Session, meta: Meta, gone: int | None, kind: str, out: str) -> None:
    await show_playlist(session)
    await wait_for(lambda: _listed(session, len(meta["names"])), "the seeded playlist")
    if gone is not None:
        name = meta["names"][gone]
        for _attempt in range(3):
            row = await wait_for(lambda: node(session, "tree item", name, vlc_window), f"the row of {name}")
            await act(session, Click(center(row)), key("Delete"))
            try:
                await wait_for(lambda: _listed(session, len(meta["names"]) - 1), f"{name} to leave the playlist", 5)
                break
            except cb.TaskError:
                continue
    await save_playlist(session, out, kind)


async def _listed(session: cb.Session, count: int) -> bool:
    return len(await track_names(session)) == count


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _remove_and_save(session, meta, meta["gone"], M3U, meta["out"])


@cb.wrong_way
async def removes_the_next_song(task: cb.Task, session: cb.Session) -> None:
    """The song below the asked one removed instead."""
    meta = task.metadata
    await _remove_and_save(session, meta, meta["gone"] + 1, M3U, meta["out"])


@cb.wrong_way
async def removes_nothing(task: cb.Task, session: cb.Session) -> None:
    """The whole playlist saved under the asked name."""
    meta = task.metadata
    await _remove_and_save(session, meta, None, M3U, meta["out"])


@cb.wrong_way
async def saved_as_xspf(task: cb.Task, session: cb.Session) -> None:
    """The right list saved with the dialog's XSPF type (named .xspf): no M3U where asked."""
    meta = task.metadata
    await _remove_and_save(session, meta, meta["gone"], XSPF, meta["out"].removesuffix(".m3u") + ".xspf")
