"""create-file: type text into an untitled editor and save it with Save As to a given path.

Easy: one line, saved in Documents. Medium: a few lines, a file browser open alongside. Hard:
more lines, a subfolder, and a second editor (on another file) that must stay untouched.

The evaluator checks the new file's text and that nothing else in the file system changed (every
file and its text, every folder) against what setup kept. "Using Save As" holds by construction:
an untitled editor saves only through the Save As dialog. Chance 0 (typing).

Wrong ways: ``accept_the_default_name`` (Save As's untitled.txt), ``save_in_home_folder``
(the right name, one folder off) and ``oracle_then_overwrite_neighbour`` (then Save As again over
a file that was already there).
"""

from __future__ import annotations

import posixpath
import random

import cua_bench as cb
from cua_bench.tasksets.sim._desktop_common import (
    DOCS,
    HOME,
    Screen,
    arrange,
    desktop,
    file_changes,
    file_name,
    folder_files,
    fresh,
    keep,
    kept,
    line,
    loaders,
    seed_files,
    snapshot_files,
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
        "Do not change any other file."
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
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    now = snapshot_files(desktop(session))
    right = now.get(meta["path"]) in (meta["text"], meta["text"] + "\n")
    return [1.0 if right and not file_changes(kept(task, "files"), now, expect=[meta["path"]]) else 0.0]


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
