"""save-dialog: save the open document under a new path with the Save As dialog (ctrl+shift+s or
File > Save As...), typing the path; the original file keeps its saved content.

(It stands in for select-list-items: the toolkit's ListView selects one row at a time.)
Easy: a new name in the same folder. Medium: into a subfolder, a file browser open alongside.
Hard: the document has unsaved changes that must go into the new file only, and the subfolder
already holds look-alike names.

The evaluator checks, against what setup kept, that the new file holds the document (with its
unsaved changes) and nothing else in the file system changed: the original keeps its saved text,
no neighbour is overwritten, no folder appears. The window and the method come from the desktop's
records: the new file was last written by the editor that showed the document (its id kept at
setup) through its Save As dialog, with the text now in the file, which that editor still shows
(an edit after the save is not what was saved); no other window's input changed. Chance 0 (typing a path).

Wrong ways: ``save_in_home_folder`` (the right name, the wrong folder), ``overwrite_a_neighbour``
(Save As onto a file already there), ``oracle_then_overwrite_neighbour`` and
``saved_from_a_new_editor`` (the document retyped into another editor and saved from there).
"""

from __future__ import annotations

import posixpath
import random

import cua_bench as cb
from cua_bench.sim import EditorApp, char_event
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
    lookalike,
    other_windows_changed,
    paragraph,
    seed_files,
    snapshot_files,
    written_by,
)

FAMILY = "save-dialog"
SUBFOLDERS = ("archive", "backup", "copies", "sent", "2024", "shared")


def build(rng: random.Random, difficulty: str) -> cb.Task:
    name = file_name(rng, rng.choice([".txt", ".md"]))
    source = f"{DOCS}/{name}"
    folder = DOCS if difficulty == "easy" else f"{DOCS}/{rng.choice(SUBFOLDERS)}"
    new = lookalike(rng, name) if rng.random() < 0.5 else file_name(rng, ".txt")
    while new == name:
        new = file_name(rng, ".txt")
    contents = {source: paragraph(rng, rng.randint(2, 6)) + "\n"}
    contents.update(folder_files(rng, folder, 2 if difficulty == "medium" else 4, new, [name, new]))
    added = f"{line(rng)}\n" if difficulty == "hard" else ""
    what = "with its unsaved changes " if added else ""
    description = (
        f"The editor shows {source}{' with unsaved changes' if added else ''}. Using Save As (ctrl+shift+s or "
        f"File > Save As...), save the document {what}as {folder}/{new}. {source} itself must keep its saved "
        "content; no other file may change, and the editor keeps showing what you saved."
    )
    metadata = {"files": contents, "source": source, "target": f"{folder}/{new}", "added": added,
                "browser": difficulty == "medium", "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=8, chance=0.0)


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    seed_files(sim, meta["files"])
    opened = [await session.launch("files", folder=posixpath.dirname(meta["target"]))] if meta["browser"] else []
    opened.append(await session.launch("editor", path=meta["source"], width=600, height=400))
    app = sim.get_window(opened[-1]).data["app"]
    assert isinstance(app, EditorApp)
    app.area.buffer.set_caret(len(app.text))
    for char in meta["added"]:  # typed, so the editor knows the text as unsaved
        app.area.on_key(char_event(char))
    arrange(random.Random(meta["seed"]), sim, [sim.get_window(i) for i in opened])
    task.scratch["editor"] = opened[-1]
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    sim = desktop(session)
    before, now = kept(task, "files"), snapshot_files(sim)
    text = now.get(meta["target"])
    if text != before[meta["source"]] + meta["added"] or file_changes(before, now, expect=[meta["target"]]):
        return [0.0]
    editor = kept(task, "editor")
    saved = written_by(sim, meta["target"], editor, SAVE, SAVE_AS)
    untouched = not other_windows_changed(task, sim, allow=())  # the editor stays open, as the instruction says
    return [
        1.0
        if saved is not None and saved.text == text and untouched and editors_show_saved(sim, meta["target"])
        else 0.0
    ]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _save_as(Screen(session), task.metadata["target"])


async def _save_as(screen: Screen, path: str) -> None:
    await screen.front(await screen.window(app="editor"))
    await screen.save_as(path)


def _neighbour(task: cb.Task) -> str:
    """A file already in the target folder (a look-alike name in half the variants)."""
    folder = posixpath.dirname(task.metadata["target"])
    return next(p for p in task.metadata["files"] if posixpath.dirname(p) == folder and p != task.metadata["source"])


@cb.wrong_way
async def save_in_home_folder(task: cb.Task, session: cb.Session) -> None:
    await _save_as(Screen(session), f"{HOME}/{posixpath.basename(task.metadata['target'])}")


@cb.wrong_way
async def overwrite_a_neighbour(task: cb.Task, session: cb.Session) -> None:
    await _save_as(Screen(session), _neighbour(task))


@cb.wrong_way
async def oracle_then_overwrite_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await _save_as(Screen(session), _neighbour(task))


@cb.wrong_way
async def saved_from_a_new_editor(task: cb.Task, session: cb.Session) -> None:
    """The document as the editor shows it typed into a new editor (File > New) and saved from there
    with Save As: the right text at the right path, but not the named editor's Save As."""
    screen = Screen(session)
    shown = (await screen.find(await screen.front(await screen.window(app="editor")), "textbox", "Editor"))["value"]
    await screen.keys("ctrl", "n")
    await screen.click(await screen.find(await screen.window("Untitled - Editor"), "textbox", "Editor"))
    await screen.type(str(shown))
    await screen.save_as(task.metadata["target"])
