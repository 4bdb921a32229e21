"""multi-mousepad-to-fileroller: add a line to a note open in Mousepad and save it, then add the note to an
archive open in File Roller (behind), so the archive holds the edited note.

The oracle types the line at the note's end (ctrl+End) and saves with ctrl+S, clicks File Roller's window
to the front, presses Add, goes from Home to the note's folder in the Add Files dialog, ticks the note
and presses Add.
The evaluator reads the archive by content (``_archive.read_archive``): its format, its old members with
their bytes and the note at its top level holding the edited text, nothing else; the note on disk holds
the edited text too (the final newline is the stated slack), and no other file under home changed. The
line exists only in what the agent typed, so the member proves the text went from Mousepad to the archive.
Wrong ways: ``added_before_saving`` (added first, then edited and saved: the archive holds the old text)
and ``never_added`` (edited and saved, the archive left as it was).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._archive import add_files, archive_at, archive_bytes, archive_title, focus, holds_exactly
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    distinct,
    edit_and_save,
    file_name,
    file_title,
    files_since_setup,
    key,
    loaders,
    nothing_else_changed,
    output_text,
    remember_files,
    same_text,
    sentence,
    start,
    write_files,
)
from cua_core import TypeText

NAME = "multi-mousepad-to-fileroller"
WAIVED = OUTPUT_IS_THE_WORK
FORMATS = ("zip", "tar.gz")
FOLDERS = ("Notes", "Documents", "Drafts")


def build(rng: random.Random) -> cb.Task:
    note, neighbour, *held = distinct(rng, rng.randint(4, 6), lambda r: file_name(r, r.choice([".txt", ".md"])))
    folder = rng.choice(FOLDERS)
    text = "\n".join(sentence(rng) for _ in range(rng.randint(2, 4))) + "\n"
    line = f"added: {sentence(rng)}"
    fmt = rng.choice(FORMATS)
    path = f"{rng.choice(WORDS)}-{rng.choice(['notes', 'share', 'send'])}{rng.randint(1, 9)}.{fmt}"
    members = {name: sentence(rng) + "\n" for name in held}
    edited = (f"{text}{line}\n", f"{text}{line}")
    return cb.Task(
        description=f"Mousepad shows ~/{folder}/{note}; File Roller, behind it, shows the archive ~/{path}. Add the "
        f"line '{line}' at the end of the note and save it, then add ~/{folder}/{note} to the archive (at its top "
        "level), so the archive holds the edited note.",
        metadata={
            "folder": folder,
            "note": note,
            "line": line,
            "path": path,
            "format": fmt,
            "members": members,
            "files": {f"{folder}/{note}": text, f"{folder}/{neighbour}": sentence(rng) + "\n"},
            "edited": edited[0],
            "expected": {**members, note: edited},
        },
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def note_path(meta: Meta) -> str:
    return f"{meta['folder']}/{meta['note']}"


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, meta["files"])
    await session.write_bytes(meta["path"], archive_bytes(meta["format"], meta["members"]))
    await start(session, "file-roller", meta["path"], title=archive_title(meta["path"]))
    await start(session, "mousepad", note_path(meta), title=file_title(note_path(meta), "Mousepad"))
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    archive = await archive_at(task, session, after, meta["path"])
    held = holds_exactly(task, meta["path"], archive, meta["format"], meta["expected"])
    saved = same_text(await output_text(session, after, note_path(meta)), meta["edited"])
    if not saved:
        task.explain(f"{note_path(meta)} does not hold the edited note")
    kept = nothing_else_changed(task, before, after, expect=[meta["path"], note_path(meta)])
    return [1.0 if held and saved and kept else 0.0]


async def _saved(meta: Meta, session: cb.Session) -> None:
    await edit_and_save(session, note_path(meta), key("ctrl+end"), TypeText(meta["line"] + "\n"))


async def _added(meta: Meta, session: cb.Session) -> None:
    await focus(session, archive_title(meta["path"]))
    await add_files(session, meta["path"], meta["folder"], [meta["note"]])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _saved(task.metadata, session)
    await _added(task.metadata, session)


@cb.wrong_way
async def added_before_saving(task: cb.Task, session: cb.Session) -> None:
    """The note added to the archive first, then edited and saved: the member holds the old text."""
    await _added(task.metadata, session)
    await focus(session, file_title(note_path(task.metadata), "Mousepad", clean=False))
    await _saved(task.metadata, session)


@cb.wrong_way
async def never_added(task: cb.Task, session: cb.Session) -> None:
    """The note edited and saved, the archive left as it was."""
    await _saved(task.metadata, session)
