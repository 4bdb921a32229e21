"""save-dialog: save the open document under a new path with the Save As dialog (ctrl+shift+s or
File > Save As...), typing the path; the original file keeps its saved content.

(It stands in for select-list-items: the toolkit's ListView selects one row at a time.)
Easy: a new name in the same folder. Medium: into a subfolder, a file browser open alongside.
Hard: the document has unsaved changes that must go into the new file only, and the subfolder
already holds look-alike names.
"""

from __future__ import annotations

import posixpath
import random

import cua_bench as cb
from cua_bench.sim import EditorApp
from cua_bench.sim.events import char_event
from cua_bench.tasksets.sim._desktop_common import (
    DOCS,
    Screen,
    arrange,
    desktop,
    file_name,
    files,
    folder_files,
    fresh,
    line,
    loaders,
    lookalike,
    paragraph,
    seed_files,
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
        "content, and no other file may change."
    )
    metadata = {"files": contents, "source": source, "target": f"{folder}/{new}", "added": added,
                "browser": difficulty == "medium", "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=8)


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


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    expected = {**meta["files"], meta["target"]: meta["files"][meta["source"]] + meta["added"]}
    return [1.0 if files(desktop(session)) == expected else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await screen.front(await screen.window(app="editor"))
    await screen.keys("ctrl", "shift", "s")
    dialog = await screen.window("Save As")
    await screen.click(await screen.find(dialog, "textbox", "File name"))
    await screen.keys("ctrl", "a")
    await screen.type(task.metadata["target"], enter=True)
