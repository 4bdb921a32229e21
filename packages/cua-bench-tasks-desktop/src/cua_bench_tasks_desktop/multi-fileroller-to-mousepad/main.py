"""multi-fileroller-to-mousepad: extract a .zip archive open in File Roller into a folder, then open one of
the extracted notes in Mousepad (open behind, on an empty document), add a line at its end and save it.

The oracle extracts with the Extract button and dialog (``~/FOLDER``) and closes the completion note,
clicks Mousepad's window to the front, opens the note with ctrl+O (the full path typed after ctrl+L),
types the line at its end (ctrl+End) and saves with ctrl+S.
The evaluator reads the end state from the file snapshot: the folder holds exactly the archive's
members, each a regular file of its own with the member's bytes, but the note, which holds its
member's text and the line (the final newline is the stated slack); the archive and every other file
under home are as setup left them. Only the archive held the note's text, so the edited note proves
the text went from File Roller to Mousepad.
Wrong ways: ``never_saved`` (the line typed, not saved: the note as extracted), and
``only_the_note_extracted`` (its row selected and "Selected files" extracted: the other members
missing).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._archive import archive_bytes, archive_title, extract_all, extracted_exactly, focus
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    distinct,
    edit_and_save,
    env_var,
    file_name,
    file_title,
    files_since_setup,
    key,
    loaders,
    nothing_else_changed,
    open_dialog,
    remember_files,
    sentence,
    shell,
    start,
    submit_dialog,
    window,
)
from cua_core import TypeText

NAME = "multi-fileroller-to-mousepad"
WAIVED = OUTPUT_IS_THE_WORK
TARGETS = ("Notes", "Projects", "Unpacked", "Work")
MOUSEPAD = "Untitled 1 - Mousepad"


def build(rng: random.Random) -> cb.Task:
    note, *others = distinct(rng, rng.randint(3, 5), lambda r: file_name(r, r.choice([".txt", ".md"])))
    text = "\n".join(sentence(rng) for _ in range(rng.randint(2, 4))) + "\n"
    line = f"done: {sentence(rng)}"
    members = {note: text, **{name: sentence(rng) + "\n" for name in others[:-1]}}
    members[f"{rng.choice(['old', 'more', 'misc'])}/{others[-1]}"] = sentence(rng) + "\n"
    stem = f"{rng.choice(WORDS)}-notes-{rng.randint(1, 99)}"
    target = rng.choice(TARGETS)
    return cb.Task(
        description=f"File Roller shows the archive ~/Downloads/{stem}.zip and Mousepad is open behind it. Extract "
        f"all of the archive into the folder ~/{target}, then in Mousepad open ~/{target}/{note}, add the line "
        f"'{line}' at its end and save it.",
        metadata={
            "stem": stem,
            "target": target,
            "note": note,
            "line": line,
            "members": members,
            "expected": {**members, note: (f"{text}{line}\n", f"{text}{line}")},
        },
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def archive_name(meta: Meta) -> str:
    return f"{meta['stem']}.zip"


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await session.run_command(f"mkdir -p Downloads {shell(meta['target'])}", timeout=20, check=True)
    await session.write_bytes(f"Downloads/{archive_name(meta)}", archive_bytes("zip", meta["members"]))
    await start(session, "mousepad", title=MOUSEPAD)
    await start(session, "file-roller", f"Downloads/{archive_name(meta)}", title=archive_title(archive_name(meta)))
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    done = extracted_exactly(task, after, meta["target"], meta["expected"])
    return [1.0 if done and nothing_else_changed(task, before, after, expect=[meta["target"]]) else 0.0]


async def _edited(meta: Meta, session: cb.Session, *, saved: bool = True, selected: str | None = None) -> None:
    await extract_all(session, archive_name(meta), meta["target"], selected=selected)
    await focus(session, MOUSEPAD)
    path = f"{meta['target']}/{meta['note']}"
    await open_dialog(session, "ctrl+o", "Open File")
    # GTK's Open dialog starts in Recent, where typed text searches: ctrl+L asks for a location instead,
    # and a full path needs no completion against the folder shown.
    await act(session, key("ctrl+l"))
    await submit_dialog(session, "Open File", f"{await env_var(session, 'HOME')}/{path}")
    await window(session, file_title(path, "Mousepad"))
    if saved:
        await edit_and_save(session, path, key("ctrl+end"), TypeText(meta["line"] + "\n"))
    else:
        await act(session, key("ctrl+end"), TypeText(meta["line"] + "\n"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _edited(task.metadata, session)


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Extracted and the line typed, never saved: the note is as the archive held it."""
    await _edited(task.metadata, session, saved=False)


@cb.wrong_way
async def only_the_note_extracted(task: cb.Task, session: cb.Session) -> None:
    """Only the note's row extracted ("Selected files"), then edited and saved: the other members are missing."""
    await _edited(task.metadata, session, selected=task.metadata["note"])
