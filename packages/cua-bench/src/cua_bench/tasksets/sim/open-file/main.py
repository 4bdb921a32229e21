"""open-file: open the named file from the file browser so that it shows in the editor.

Easy: a few files in the open folder. Medium: look-alike names and an editor already showing
another file. Hard: the file is in a subfolder of Documents in a long list (browser at home), and
a file of the same name sits in Documents itself.
"""

from __future__ import annotations

import posixpath
import random

import cua_bench as cb
from cua_bench.sim import EditorApp
from cua_bench.tasksets.sim._desktop_common import (
    DOCS,
    HOME,
    Screen,
    arrange,
    desktop,
    editor_paths,
    file_name,
    files,
    folder_files,
    fresh,
    loaders,
    seed_files,
)

FAMILY = "open-file"
SUBFOLDERS = ("projects", "letters", "receipts", "school", "taxes", "travel", "work")
COUNTS = {"easy": 4, "medium": 10, "hard": 16}


def build(rng: random.Random, difficulty: str) -> cb.Task:
    folder = f"{DOCS}/{rng.choice(SUBFOLDERS)}" if difficulty == "hard" else DOCS
    name = file_name(rng)
    contents = folder_files(rng, folder, COUNTS[difficulty] - 1, None if difficulty == "easy" else name, [name])
    target = f"{folder}/{name}"
    contents[target] = f"{name}\nthis is the file to open ({rng.randint(100, 999)})\n"
    if difficulty == "hard":
        contents[f"{DOCS}/{name}"] = f"{name}\nnot this one\n"
    distractor = next(p for p in contents if p != target) if difficulty == "medium" else None
    start = HOME if difficulty == "hard" else DOCS
    description = f"Open the file {target} from the file browser so that it shows in the editor."
    metadata = {"files": contents, "target": target, "start": start, "distractor": distractor,
                "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=10)


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    seed_files(sim, meta["files"])
    opened = []
    if meta["distractor"]:
        opened.append(await session.launch("editor", path=meta["distractor"], width=480, height=360))
    opened.append(await session.launch("files", folder=meta["start"]))
    arrange(random.Random(meta["seed"]), sim, [sim.get_window(i) for i in opened])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    sim = desktop(session)
    expected = sorted(p for p in (meta["target"], meta["distractor"]) if p)
    shown = [w.data["app"].text for w in sim.windows() if isinstance(w.data.get("app"), EditorApp)
             and w.data["app"].path == meta["target"]]  # fmt: skip
    right = sorted(p or "" for p in editor_paths(sim)) == expected and shown == [meta["files"][meta["target"]]]
    return [1.0 if right and files(sim) == meta["files"] else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    screen = Screen(session)
    route = posixpath.relpath(posixpath.dirname(meta["target"]), meta["start"])
    browser = await screen.open_in_browser([] if route == "." else route.split("/"))
    row = await screen.list_item(browser, "Files", posixpath.basename(meta["target"]))
    await screen.click(row, clicks=2)
