"""rename-file: rename one file in the file browser (F2, the Rename button or the context menu).

Medium and hard variants add look-alike names and a file of the same name in another folder;
hard ones put the file in a long list (it must be scrolled to) in a subfolder of Documents, with
the browser opened at the home folder.

The evaluator checks, against what setup kept, that the old name is gone, the new name holds the
file's text and is the only file that does (dot-named ones included), nothing else in the file
system changed (every other file and its text, every folder), and, from the desktop's records,
that a file browser's rename put the file there. Chance 0 (typing a name).

Wrong ways: ``rename_the_wrong_file`` (a neighbour, often a look-alike, gets the new name),
``drop_the_extension`` (the new name typed without its extension),
``oracle_then_delete_one_more`` and ``oracle_then_hidden_backup`` (a copy left under ``.old``).
"""

from __future__ import annotations

import posixpath
import random
from typing import Any

import cua_bench as cb
from cua_bench.nodes import find_all
from cua_bench.sim.provenance import FILE_BROWSER, RENAME
from cua_bench_tasks_sim._desktop_common import (
    DOCS,
    HOME,
    Screen,
    arrange,
    desktop,
    file_changes,
    file_name,
    folder_files,
    fresh,
    holders,
    keep,
    kept,
    loaders,
    lookalike,
    seed_files,
    snapshot_files,
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
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=16, chance=0.0)


load_train, load_test = loaders(FAMILY, build)
WAIVED = {
    "untouched-window-closed": (
        "the one window setup opens is the file browser the renaming is done in: closed after the rename, it "
        "holds nothing the task asks to keep (the files are the work, and they are checked whole)"
    ),
}


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    seed_files(sim, task.metadata["files"])
    browser = sim.get_window(await session.launch("files", folder=task.metadata["start"]))
    arrange(random.Random(task.metadata["seed"]), sim, [browser])
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    sim = desktop(session)
    before, now = kept(task, "files"), snapshot_files(sim)
    old, new = f"{meta['folder']}/{meta['old']}", f"{meta['folder']}/{meta['new']}"
    moved = old not in now and holders(now, before[old]) == [new]
    record = sim.provenance.last_write(new)
    renamed = record is not None and record.op == RENAME and record.via == FILE_BROWSER
    return [1.0 if moved and renamed and not file_changes(before, now, expect=[old, new]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _rename(Screen(session), task.metadata, task.metadata["old"], task.metadata["new"])


async def _in_folder(screen: Screen, meta: dict[str, Any]) -> dict[str, Any]:
    """The browser, showing the file's folder (opened from where it starts, unless it shows it already)."""
    browser = await screen.front(await screen.window(app="files"))
    if find_all([browser], role="label", name=meta["folder"]):
        return browser
    route = posixpath.relpath(meta["folder"], meta["start"])
    return await screen.open_in_browser([] if route == "." else route.split("/"))


async def _rename(screen: Screen, meta: dict[str, Any], old: str, new: str) -> None:
    browser = await _in_folder(screen, meta)
    await screen.click(await screen.list_item(browser, "Files", old))
    await screen.keys("f2")
    await screen.type(new, enter=True)


async def _a_neighbour(screen: Screen, meta: dict[str, Any]) -> str:
    browser = await _in_folder(screen, meta)
    rows = find_all([await screen.find(browser, "list", "Files")], role="listitem", value="file")
    return next(r["name"] for r in rows if r["name"] not in (meta["old"], meta["new"]))


@cb.wrong_way
async def rename_the_wrong_file(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _rename(screen, task.metadata, await _a_neighbour(screen, task.metadata), task.metadata["new"])


@cb.wrong_way
async def drop_the_extension(task: cb.Task, session: cb.Session) -> None:
    await _rename(Screen(session), task.metadata, task.metadata["old"], task.metadata["new"].rpartition(".")[0])


@cb.wrong_way
async def oracle_then_delete_one_more(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    screen = Screen(session)
    await screen.delete_in_browser(await _a_neighbour(screen, task.metadata))


@cb.wrong_way
async def oracle_then_hidden_backup(task: cb.Task, session: cb.Session) -> None:
    """The rename, then the file opened and saved again under its old name with a dot in front: a
    hidden copy left behind."""
    await solve(task, session)
    screen = Screen(session)
    meta = task.metadata
    browser = await _in_folder(screen, meta)
    await screen.click(await screen.list_item(browser, "Files", meta["new"]), clicks=2)
    await screen.save_as(f"{meta['folder']}/.{meta['old']}")
