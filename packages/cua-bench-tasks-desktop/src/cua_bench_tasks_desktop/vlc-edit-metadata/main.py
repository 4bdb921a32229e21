"""vlc-edit-metadata: in VLC's media information, set the title and artist of the FLAC song it has
open and save them into the file.

Setup makes a 30-second FLAC with ``ffmpeg`` (a title, an artist, an album, a genre and a year), keeps
its tags and the MD5 of its decoded audio as mutagen reads them, and starts VLC on it, paused
(``--start-paused``). The oracle opens Tools > Media Information (ctrl+i), fills the Title and Artist
fields (found by their labels, checked in the tree), clicks Save Metadata once it shows, waits for the
file to change, and closes the dialog.

The evaluator reads the song with mutagen (``_vlc.read_audio``): a plain file with one link, a FLAC by
its content, its title and artist exactly the asked ones, every other tag as seeded, and its decoded
audio unchanged (the STREAMINFO MD5 and length as seeded); and no other file under home changed (VLC's own
``OWN`` files may).
Wrong ways: ``closes_without_saving`` (the fields filled, the dialog closed without Save Metadata),
``title_and_artist_swapped`` and ``title_only`` (the artist left as it was).
Waived: ``trailing-blank-lines`` (the output is binary; the only text files that change are VLC's own, ``OWN``)
and ``forged-write`` (``OUTPUT_IS_THE_WORK``: the song's tags are the asked output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import ADJECTIVES, NOUNS, act, loaders, no_window, wait_for
from cua_bench_tasks_desktop._vlc import (
    BINARY_WAIVERS,
    Audio,
    after,
    click,
    fill,
    make_media,
    open_vlc,
    open_window,
    read_audio,
    scored,
    top,
)
from cua_core import Wait

NAME = "vlc-edit-metadata"
WAIVED = BINARY_WAIVERS
INFO = "Current Media Information"
GENRES = ("Jazz", "Rock", "Folk", "Ambient", "Blues", "Classical", "Pop")
ARTISTS = ("Mara Quill", "The Lanterns", "Otto Brandt", "Ines Vale", "Northern Fields", "Juno Park", "Kit Ambrose")


def _title(rng: random.Random) -> str:
    return f"{rng.choice(ADJECTIVES).capitalize()} {rng.choice(NOUNS).capitalize()}"


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(["Music", "recordings", "Music/demos"])
    path = f"{folder}/{rng.choice(['track', 'take', 'demo', 'song'])}{rng.choice('-_')}{rng.randint(1, 40):02d}.flac"
    old_title, title = _title(rng), _title(rng)
    while title == old_title:
        title = _title(rng)
    old_artist, artist = rng.sample(ARTISTS, 2)
    tags = {
        "title": old_title,
        "artist": old_artist,
        "album": f"{rng.choice(NOUNS).capitalize()} Sessions",
        "genre": rng.choice(GENRES),
        "date": str(rng.randint(1995, 2025)),
    }
    return cb.Task(
        description=f"The song ~/{path} is open in VLC. In its media information (Tools > Media Information) set "
        f'its title to "{title}" and its artist to "{artist}", and save them into the file (Save Metadata). '
        "Leave its other tags as they are.",
        metadata={"path": path, "tags": tags, "title": title, "artist": artist, "pitch": rng.randrange(300, 900, 10)},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    folder = meta["path"].rsplit("/", 1)[0]
    await session.run_command(f"mkdir -p '{folder}'", timeout=20, check=True)
    tags = " ".join(f"-metadata {key}='{value}'" for key, value in meta["tags"].items())
    await make_media(
        session, f"-f lavfi -i sine=frequency={meta['pitch']}:duration=30 -ac 2 -ar 44100 {tags} '{meta['path']}'"
    )
    seed = read_audio(await session.read_bytes(meta["path"]))
    if isinstance(seed, str):
        raise cb.TaskError(f"the seed song: {seed}")
    task.scratch["seed"] = {"tags": seed.tags, "md5": seed.md5, "seconds": seed.seconds}
    await open_vlc(task, session, "--start-paused", meta["path"])


def problem_of(meta: Meta, seed: dict[str, object], found: Audio | str) -> str | None:
    if isinstance(found, str):
        return found
    if found.format != "FLAC":
        return f"a {found.format} file, not FLAC"
    if found.md5 != seed["md5"] or abs(found.seconds - float(str(seed["seconds"]))) > 0.01:
        return "its audio is not the seed's"
    want = {**dict(seed["tags"]), "title": [meta["title"]], "artist": [meta["artist"]]}  # type: ignore[call-overload]
    if found.tags != want:
        wrong = sorted(k for k in set(want) | set(found.tags) if want.get(k) != found.tags.get(k))
        return (
            f"its tags {', '.join(wrong)} are {[found.tags.get(k) for k in wrong]}, not {[want.get(k) for k in wrong]}"
        )
    return None


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    seed = task.scratch.get("seed")
    if not isinstance(seed, dict):
        raise cb.TaskError("setup kept no seed")
    return await scored(task, session, meta["path"], lambda data: problem_of(meta, seed, read_audio(data)))


async def _edit(session: cb.Session, meta: Meta, values: dict[str, str], save: bool) -> None:
    await open_window(session, "ctrl+i", INFO)
    for label, value in values.items():

        async def field(label: str = label) -> dict[str, object] | None:
            return after(await top(session, INFO), label)

        await fill(session, field, value, f"the {label} field")
    if save:
        before = await session.read_bytes(meta["path"])
        await click(session, "push button", "Save Metadata", INFO)

        async def saved() -> bool:
            return await session.read_bytes(meta["path"]) != before

        await wait_for(saved, f"{meta['path']} to be saved")
    await act(session, Wait(0.5))
    await click(session, "push button", "Close", INFO)
    await no_window(session, INFO)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _edit(session, meta, {"Title": meta["title"], "Artist": meta["artist"]}, save=True)


@cb.wrong_way
async def closes_without_saving(task: cb.Task, session: cb.Session) -> None:
    """Both fields filled, the dialog closed without Save Metadata."""
    meta = task.metadata
    await _edit(session, meta, {"Title": meta["title"], "Artist": meta["artist"]}, save=False)


@cb.wrong_way
async def title_and_artist_swapped(task: cb.Task, session: cb.Session) -> None:
    """The title typed into Artist and the artist into Title, saved."""
    meta = task.metadata
    await _edit(session, meta, {"Title": meta["artist"], "Artist": meta["title"]}, save=True)


@cb.wrong_way
async def title_only(task: cb.Task, session: cb.Session) -> None:
    """Only the title set and saved; the artist left as seeded."""
    meta = task.metadata
    await _edit(session, meta, {"Title": meta["title"]}, save=True)
