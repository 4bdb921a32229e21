"""rename-file: rename one file in the file browser (F2, the Rename button or the context menu).

Medium and hard variants add look-alike names and a file of the same name in another folder;
hard ones put the file in a long list (it must be scrolled to) in a subfolder of Documents, with
the browser opened at the home folder.
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
    file_name,
    files,
    folder_files,
    fresh,
    loaders,
    lookalike,
    seed_files,
)

FAMILY = "rename-file"
SUBFOLDERS = ("projects", "archive", "work", "personal", "drafts", "shared", "old", "clients")
COUNTS = {"easy": 3, "medium": 9, "hard": 18}


def build(rng: random.Random, difficulty: str) -> cb.Task:
    sub, other = rng.sample(SUBFOLDERS, 2)
    folder = f"{DOCS}/{sub}" if difficulty == "hard" else DOCS
    old = file_name(rng)
    new = lookalike(rng, old) if difficulty == "hard" and rng.random() < 0.5 else file_name(rng)
    while new == old:
        new = file_name(rng)
    contents = folder_files(rng, folder, COUNTS[difficulty] - 1, None if difficulty == "easy" else old, [old, new])
    contents[f"{folder}/{old}"] = f"{old}\nkeep this text: {rng.randint(1000, 9999)}\n"
    if difficulty != "easy":  # the same name elsewhere, which must stay as it is
        elsewhere = DOCS if difficulty == "hard" else f"{DOCS}/{other}"
        contents.update(folder_files(rng, elsewhere, 2, None, [old]))
        contents[f"{elsewhere}/{old}"] = f"{old}\nanother copy\n"
    start = HOME if difficulty == "hard" else DOCS
    description = (
        f"Using the file browser, rename the file {folder}/{old} to '{new}' (in the same folder). "
        "Leave every other file as it is."
    )
    metadata = {"files": contents, "folder": folder, "old": old, "new": new, "start": start,
                "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=16)


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    seed_files(sim, task.metadata["files"])
    browser = sim.get_window(await session.launch("files", folder=task.metadata["start"]))
    arrange(random.Random(task.metadata["seed"]), sim, [browser])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    expected = dict(meta["files"])
    expected[f"{meta['folder']}/{meta['new']}"] = expected.pop(f"{meta['folder']}/{meta['old']}")
    return [1.0 if files(desktop(session)) == expected else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    screen = Screen(session)
    route = posixpath.relpath(meta["folder"], meta["start"])
    browser = await screen.open_in_browser([] if route == "." else route.split("/"))
    await screen.click(await screen.list_item(browser, "Files", meta["old"]))
    await screen.keys("f2")
    await screen.type(meta["new"], enter=True)
