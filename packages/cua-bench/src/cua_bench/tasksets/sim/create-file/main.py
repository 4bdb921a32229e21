"""create-file: type text into an untitled editor and save it with Save As to a given path.

Easy: one line, saved in Documents. Medium: a few lines, a file browser open alongside. Hard:
more lines, a subfolder, and a second editor (on another file) that must stay untouched.
"""

from __future__ import annotations

import random

import cua_bench as cb
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
    seed_files,
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
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=12)


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


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    now = files(desktop(session))
    written = now.pop(meta["path"], None)
    right = written is not None and written in (meta["text"], meta["text"] + "\n")
    return [1.0 if right and now == meta["files"] else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    screen = Screen(session)
    editor = await screen.front(await screen.window(UNTITLED))
    await screen.click(await screen.find(editor, "textbox", "Editor"))
    await screen.type(meta["text"])
    await screen.keys("ctrl", "shift", "s")
    dialog = await screen.window("Save As")
    await screen.click(await screen.find(dialog, "textbox", "File name"))
    await screen.keys("ctrl", "a")
    await screen.type(meta["path"], enter=True)
