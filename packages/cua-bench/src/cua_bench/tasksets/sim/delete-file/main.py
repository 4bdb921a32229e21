"""delete-file: delete exactly the named file(s) in the file browser, nothing else.

Easy: one file among a few. Medium: two among look-alikes. Hard: three in a long list that must
be scrolled, next to look-alike names and a same-named file in a subfolder that must survive.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.sim._desktop_common import (
    DOCS,
    Screen,
    arrange,
    desktop,
    files,
    folder_files,
    fresh,
    loaders,
    pick_names,
    seed_files,
)

FAMILY = "delete-file"
SUBFOLDERS = ("keep", "backup", "archive", "reports", "personal", "photos", "music", "2024")
SIZES = {"easy": (1, 3), "medium": (2, 7), "hard": (3, 16)}


def build(rng: random.Random, difficulty: str) -> cb.Task:
    doomed_count, others = SIZES[difficulty]
    doomed = pick_names(rng, doomed_count)
    contents: dict[str, str] = {}
    for name in doomed:
        contents[f"{DOCS}/{name}"] = f"{name}\nold content {rng.randint(100, 999)}\n"
    like = None if difficulty == "easy" else rng.choice(doomed)
    contents.update(folder_files(rng, DOCS, others, like, doomed))
    if difficulty == "hard":
        sub = rng.choice(SUBFOLDERS)
        contents[f"{DOCS}/{sub}/{doomed[0]}"] = "the copy in the subfolder stays\n"
        contents.update(folder_files(rng, f"{DOCS}/{sub}", 2))
    listed = " and ".join(f"'{name}'" for name in doomed)
    noun = "file" if doomed_count == 1 else "files"
    description = (
        f"In the file browser, delete the {noun} {listed} from the Documents folder ({DOCS}). "
        "Do not delete or change anything else."
    )
    metadata = {"files": contents, "delete": doomed, "seed": rng.randrange(2**32)}
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=6 + 4 * doomed_count)


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    seed_files(sim, task.metadata["files"])
    browser = sim.get_window(await session.launch("files", folder=DOCS))
    arrange(random.Random(task.metadata["seed"]), sim, [browser])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    doomed = {f"{DOCS}/{name}" for name in task.metadata["delete"]}
    expected = {path: text for path, text in task.metadata["files"].items() if path not in doomed}
    return [1.0 if files(desktop(session)) == expected else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    browser = await screen.open_in_browser([])
    for name in task.metadata["delete"]:
        await screen.click(await screen.list_item(browser, "Files", name))
        await screen.keys("delete")
