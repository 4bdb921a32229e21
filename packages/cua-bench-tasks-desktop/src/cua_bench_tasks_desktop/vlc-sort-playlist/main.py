"""vlc-sort-playlist: sort the playlist open in VLC by title or by duration, ascending or descending,
and save it as an XSPF playlist.

Setup makes five FLAC songs with ``ffmpeg`` (each with a title tag that is not its file's name, and a
length of its own, 2 to 9 seconds) and starts VLC with them in its playlist in a shuffled order (not
playing). The oracle shows the playlist (ctrl+l), clicks the asked column's header until the rows read in
the asked order (a first click sorts ascending, a second descending), then Media > Save Playlist to
File... (ctrl+y) with the XSPF type, and waits for the file.

The evaluator reads the playlist with lxml (``_vlc.read_xspf``): a plain file with one link, an XSPF by
content, ending as VLC ends it, whose tracks are exactly the five songs in the asked order; and no
other file under home changed (the songs among them; VLC's own ``OWN`` files may).
Every variant's titles, lengths and file names are drawn so that the asked order differs from the
seeded one, from its reverse, and from the order by the other column.
Wrong ways: ``other_direction``, ``other_column`` (the same direction) and ``saved_unsorted``.
Waived: ``forged-write`` (``OUTPUT_IS_THE_WORK``: the playlist file is the asked output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import ADJECTIVES, NOUNS, act, loaders, wait_for
from cua_bench_tasks_desktop._vlc import (
    WAIVERS,
    click,
    home_path,
    make_media,
    open_vlc,
    read_xspf,
    save_playlist,
    scored,
    show_playlist,
    track_names,
    vlc_window,
)
from cua_core import Wait

NAME = "vlc-sort-playlist"
WAIVED = WAIVERS
XSPF = "XSPF playlist (*.xspf)"
COLUMNS = ("Title", "Duration")


def ordered(meta: Meta, column: str, descending: bool) -> list[int]:
    """The songs' indexes sorted by ``column`` (title or length), descending or not."""
    key = (lambda i: meta["titles"][i].lower()) if column == "Title" else (lambda i: meta["lengths"][i])
    return sorted(range(len(meta["titles"])), key=key, reverse=descending)


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(["Music", "album", "Music/sorted", "tracks"])
    while True:
        titles = list(dict.fromkeys(f"{rng.choice(ADJECTIVES).capitalize()} {rng.choice(NOUNS)}" for _ in range(5)))
        lengths = rng.sample(range(2, 10), len(titles))
        if len(titles) < 5 or len({t[0] for t in titles}) < 5:
            continue
        names = [f"track{rng.choice('-_')}{n:02d}.flac" for n in rng.sample(range(1, 40), 5)]
        column, descending = rng.choice(COLUMNS), rng.random() < 0.5
        meta = {"folder": folder, "titles": titles, "lengths": lengths, "names": names}
        want = ordered(meta, column, descending)
        seeded = list(range(5))
        other = ordered(meta, "Duration" if column == "Title" else "Title", descending)
        if want not in (seeded, seeded[::-1], other, other[::-1]):
            break
    out = f"{folder}/{rng.choice(['sorted', 'by-' + column.lower(), 'ordered'])}-{rng.randint(1, 99)}.xspf"
    way = (
        ("Z to A" if descending else "A to Z")
        if column == "Title"
        else ("longest first" if descending else "shortest first")
    )
    return cb.Task(
        description=f"Sort VLC's playlist by {column.lower()}, {way}, and save it as an XSPF playlist ~/{out} "
        "(Media > Save Playlist to File).",
        metadata={**meta, "column": column, "descending": descending, "out": out, "pitch": rng.randrange(300, 900, 10)},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await session.run_command(f"mkdir -p '{meta['folder']}'", timeout=20, check=True)
    paths = [f"{meta['folder']}/{name}" for name in meta["names"]]
    for path, title, length in zip(paths, meta["titles"], meta["lengths"], strict=True):
        await make_media(
            session,
            f"-f lavfi -i sine=frequency={meta['pitch']}:duration={length} -ar 22050 "
            f"-metadata title='{title}' '{path}'",
        )
    await open_vlc(task, session, "--no-playlist-autostart", *paths)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    names = [meta["names"][i] for i in ordered(meta, meta["column"], meta["descending"])]
    want = [await home_path(session, f"{meta['folder']}/{name}") for name in names]

    def problem(data: bytes | None) -> str | None:
        found = read_xspf(data)
        if isinstance(found, str):
            return found
        return None if found == want else f"its tracks are {found}, not {want}"

    return await scored(task, session, meta["out"], problem)


async def _sort_and_save(session: cb.Session, meta: Meta, column: str | None, descending: bool) -> None:
    await show_playlist(session)

    async def shows(order: list[int]) -> bool:
        return await track_names(session) == [meta["titles"][i] for i in order]

    await wait_for(lambda: shows(list(range(5))), "the seeded playlist with its titles")
    if column is not None:
        want = ordered(meta, column, descending)
        for _click in range(4):
            await click(session, "column header", column, vlc_window)
            await act(session, Wait(0.5))
            try:
                await wait_for(lambda: shows(want), f"the playlist sorted by {column}", 3)
                break
            except cb.TaskError:
                continue
        await wait_for(lambda: shows(want), f"the playlist sorted by {column}", 3)
    await save_playlist(session, meta["out"], XSPF)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _sort_and_save(session, meta, meta["column"], meta["descending"])


@cb.wrong_way
async def other_direction(task: cb.Task, session: cb.Session) -> None:
    """Sorted by the asked column the other way round."""
    meta = task.metadata
    await _sort_and_save(session, meta, meta["column"], not meta["descending"])


@cb.wrong_way
async def other_column(task: cb.Task, session: cb.Session) -> None:
    """Sorted by the other column, in the asked direction."""
    meta = task.metadata
    await _sort_and_save(session, meta, "Duration" if meta["column"] == "Title" else "Title", meta["descending"])


@cb.wrong_way
async def saved_unsorted(task: cb.Task, session: cb.Session) -> None:
    """The playlist saved as seeded."""
    await _sort_and_save(session, task.metadata, None, False)
