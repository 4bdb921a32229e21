"""delete-file: delete exactly the named file(s) in the file browser, nothing else.

Easy: one file among a few. Medium: two among look-alikes. Hard: three in a long list that must
be scrolled, next to look-alike names and a same-named file in a subfolder that must survive.

The evaluator checks, against what setup kept, that no file anywhere (dot-named ones included)
holds a named file's content, that nothing else in the file system changed (every other file and
its text, every folder: a stray new folder counts), and, from the desktop's records, that a file
browser deleted each named file. Chance: 1/C(n, k), picking the k named files among the n in the
folder.

Wrong ways: ``delete_the_wrong_file`` (one named file kept, a neighbour deleted instead),
``oracle_then_delete_one_more``, ``oracle_then_new_folder`` (a folder left behind) and
``hide_instead_of_delete`` (each named file renamed to ``.name``).
"""

from __future__ import annotations

import math
import random

import cua_bench as cb
from cua_bench.nodes import find_all
from cua_bench.sim.provenance import DELETE, FILE_BROWSER
from cua_bench_tasks_sim._desktop_common import (
    DOCS,
    Screen,
    arrange,
    desktop,
    file_changes,
    folder_files,
    fresh,
    holders,
    keep,
    kept,
    loaders,
    pick_names,
    seed_files,
    snapshot_files,
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
    in_folder = sum(1 for path in contents if path.rpartition("/")[0] == DOCS)
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=6 + 4 * doomed_count,
                   chance=1 / math.comb(in_folder, doomed_count))  # fmt: skip


load_train, load_test = loaders(FAMILY, build)
WAIVED = {
    "untouched-window-closed": (
        "the one window setup opens is the file browser the deleting is done in: closed after the deletes, it"
        " holds nothing the task asks to keep (the files are the work, and they are checked whole)"
    ),
}


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    seed_files(sim, task.metadata["files"])
    browser = sim.get_window(await session.launch("files", folder=DOCS))
    arrange(random.Random(task.metadata["seed"]), sim, [browser])
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    sim = desktop(session)
    doomed = [f"{DOCS}/{name}" for name in task.metadata["delete"]]
    before, now = kept(task, "files"), snapshot_files(sim)
    gone = not any(path in now or holders(now, before[path]) for path in doomed)
    deleted = {r.path for r in sim.provenance.files if r.op == DELETE and r.via == FILE_BROWSER}
    return [1.0 if gone and deleted >= set(doomed) and not file_changes(before, now, expect=doomed) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    browser = await screen.open_in_browser([])
    for name in task.metadata["delete"]:
        await screen.click(await screen.list_item(browser, "Files", name))
        await screen.keys("delete")


async def _a_neighbour(screen: Screen, task: cb.Task) -> str:
    """A file in the list that is not to be deleted (a look-alike name in most variants)."""
    browser = await screen.open_in_browser([])
    rows = find_all([await screen.find(browser, "list", "Files")], role="listitem", value="file")
    return next(r["name"] for r in rows if r["name"] not in task.metadata["delete"])


@cb.wrong_way
async def delete_the_wrong_file(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    spare = await _a_neighbour(screen, task)
    for name in task.metadata["delete"][1:]:
        await screen.delete_in_browser(name)
    await screen.delete_in_browser(spare)


@cb.wrong_way
async def oracle_then_delete_one_more(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    screen = Screen(session)
    await screen.delete_in_browser(await _a_neighbour(screen, task))


@cb.wrong_way
async def oracle_then_new_folder(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    screen = Screen(session)
    browser = await screen.open_in_browser([])
    await screen.click(await screen.find(browser, "button", "New Folder"))
    await screen.keys("enter")


@cb.wrong_way
async def hide_instead_of_delete(task: cb.Task, session: cb.Session) -> None:
    """Each named file renamed to a dot name (which many file browsers hide) instead of deleted."""
    screen = Screen(session)
    browser = await screen.open_in_browser([])
    for name in task.metadata["delete"]:
        await screen.click(await screen.list_item(browser, "Files", name))
        await screen.keys("f2")
        await screen.type(f".{name}", enter=True)
