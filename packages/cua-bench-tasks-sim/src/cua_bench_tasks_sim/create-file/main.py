"""create-file: type text into an untitled editor and save it with Save As to a given path.

Easy: one line, saved in Documents. Medium: a few lines, a file browser open alongside. Hard:
more lines, a subfolder, and a second editor (on another file) that must stay untouched.

The evaluator checks the new file's text and that nothing else in the file system changed (every
file and its text, every folder, dot-named ones too) against what setup kept, and the window and
method the instruction names from the desktop's records: the file was last written by the named
Untitled window (its id kept at setup; File > New makes others of the same title) through its Save
As dialog, and every character written was typed into that window's text area. Chance 0 (typing).

Wrong ways: ``accept_the_default_name`` (Save As's untitled.txt), ``save_in_home_folder``
(the right name, one folder off), ``oracle_then_overwrite_neighbour`` (then Save As again over
a file that was already there), ``oracle_then_hidden_copy`` (a stray copy under a dot name) and
the red team's ``saved_from_the_other_editor`` (typed into another editor and saved from there).
"""

from __future__ import annotations

import posixpath
import random

import cua_bench as cb
from cua_bench.sim import EditorApp, typed_into
from cua_bench.sim.provenance import SAVE, SAVE_AS
from cua_bench_tasks_sim._desktop_common import (
    DOCS,
    HOME,
    Screen,
    arrange,
    desktop,
    editors_show_saved,
    file_changes,
    file_name,
    folder_files,
    fresh,
    keep,
    kept,
    line,
    loaders,
    other_windows_changed,
    seed_files,
    snapshot_files,
    written_by,
)

FAMILY = "create-file"
SUBFOLDERS = ("notes", "letters", "work", "school", "recipes", "trips")
LINES = {"easy": (1, 1), "medium": (2, 3), "hard": (4, 6)}
UNTITLED = "Untitled - Editor"


def build(rng: random.Random, difficulty: str) -> cb.Task:
    sub = rng.choice(SUBFOLDERS)
    folder = f"{DOCS}/{sub}" if difficulty == "hard" else DOCS
    contents = folder_files(rng, folder, rng.randint(1, 4))
    name = file_name(rng, rng.choice([".txt", ".md"]))
    while f"{folder}/{name}" in contents:
        name = file_name(rng, ".txt")
    text = "\n".join(line(rng) for _ in range(rng.randint(*LINES[difficulty])))
    other = next(iter(contents)) if difficulty == "hard" else None
    shown = "\n".join(f"    {row}" for row in text.split("\n"))
    count = text.count("\n") + 1
    description = (
        f"In the empty '{UNTITLED}' window, type exactly the following {'line' if count == 1 else f'{count} lines'}:"
        f"\n{shown}\n(without the leading spaces), then save it as {folder}/{name} using Save As. "
        "Do not change any other file or window."
    )
    metadata = {"files": contents, "path": f"{folder}/{name}", "text": text, "browser": difficulty == "medium",
                "other": other, "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=12, chance=0.0)


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    seed_files(sim, meta["files"])
    opened = []
    if meta["browser"]:
        opened.append(await session.launch("files", folder=DOCS))
    if meta["other"]:
        opened.append(await session.launch("editor", path=meta["other"], width=520, height=380))
    opened.append(await session.launch("editor", width=560, height=400))
    arrange(random.Random(meta["seed"]), sim, [sim.get_window(i) for i in opened])
    app = sim.get_window(opened[-1]).data["app"]
    assert isinstance(app, EditorApp)
    task.scratch["untitled"] = app.area.ref  # the named window's text area, by identity
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    sim = desktop(session)
    now = snapshot_files(sim)
    text = now.get(meta["path"])
    if text not in (meta["text"], meta["text"] + "\n") or file_changes(kept(task, "files"), now, expect=[meta["path"]]):
        return [0.0]
    area = kept(task, "untitled")
    if other_windows_changed(task, sim, allow=[area.window]):  # the other editor stays untouched, saved or not
        return [0.0]
    saved = written_by(sim, meta["path"], area.window, SAVE, SAVE_AS)
    typed = saved is not None and saved.text == text and typed_into((run.origin for run in saved.origins), area)
    return [1.0 if typed and editors_show_saved(sim, meta["path"]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    screen = Screen(session)
    editor = await screen.front(await screen.window(UNTITLED))
    await screen.click(await screen.find(editor, "textbox", "Editor"))
    await screen.type(meta["text"])
    await screen.save_as(meta["path"])


async def _type_the_text(task: cb.Task, session: cb.Session) -> Screen:
    screen = Screen(session)
    editor = await screen.front(await screen.window(UNTITLED))
    await screen.click(await screen.find(editor, "textbox", "Editor"))
    await screen.type(task.metadata["text"])
    return screen


@cb.wrong_way
async def accept_the_default_name(task: cb.Task, session: cb.Session) -> None:
    screen = await _type_the_text(task, session)
    await screen.keys("ctrl", "shift", "s")
    await screen.keys("enter")


@cb.wrong_way
async def save_in_home_folder(task: cb.Task, session: cb.Session) -> None:
    screen = await _type_the_text(task, session)
    await screen.save_as(f"{HOME}/{posixpath.basename(task.metadata['path'])}")


@cb.wrong_way
async def oracle_then_overwrite_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await Screen(session).save_as(next(iter(task.metadata["files"])))


@cb.wrong_way
async def oracle_then_hidden_copy(task: cb.Task, session: cb.Session) -> None:
    """The file saved, then saved again beside it under a dot name: a hidden stray copy."""
    await solve(task, session)
    folder, name = posixpath.split(task.metadata["path"])
    await Screen(session).save_as(f"{folder}/.{name}")


@cb.wrong_way
async def saved_from_the_other_editor(task: cb.Task, session: cb.Session) -> None:
    """The red team's: the text typed into another editor (the hard variants' second editor, else a
    new one from File > New) and saved from there with Save As; the named window stays empty."""
    screen = Screen(session)
    others = [w for w in await session.windows() if w["app"] == "editor" and w["title"] != UNTITLED]
    if others:
        editor = await screen.front(await screen.window(others[0]["title"]))
    else:
        await screen.front(await screen.window(UNTITLED))
        await screen.keys("ctrl", "n")
        editor = await screen.window(UNTITLED)  # the new one, in front
    await screen.click(await screen.find(editor, "textbox", "Editor"))
    await screen.keys("ctrl", "a")
    await screen.type(task.metadata["text"])
    await screen.save_as(task.metadata["path"])
