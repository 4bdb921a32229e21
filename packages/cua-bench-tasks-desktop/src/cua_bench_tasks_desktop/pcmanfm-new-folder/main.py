"""pcmanfm-new-folder: create a folder with a given name in the PCManFM file manager (File > Create New).

The evaluator expects the exact end state: every file and folder under home as at setup (a
snapshot), plus the new, empty folder. Wrong ways: ``others_deleted`` (every file of the folder
deleted, then the folder created) and ``neighbour_moved_into_it`` (the oracle's steps, then a file
moved into the new folder).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    NOUNS,
    act,
    click_at,
    distinct,
    file_name,
    files_since_setup,
    key,
    listing,
    loaders,
    nothing_else_changed,
    sentence,
    submit_dialog,
    wait_for,
    window,
)
from cua_bench_tasks_desktop._pcmanfm import folder_setup, paste_into, until

NAME = "pcmanfm-new-folder"
FOLDERS = ("Documents", "Projects", "Pictures", "Music", "Work")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    new = rng.choice([f"{rng.choice(NOUNS)} {rng.randint(2019, 2031)}", f"{rng.choice(NOUNS)}-{rng.choice(NOUNS)}",
                      rng.choice(NOUNS).capitalize() + " files"])  # fmt: skip
    names = distinct(rng, rng.randint(1, 4), file_name)
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in names}
    return cb.Task(
        description=f"The file manager shows ~/{folder}. Create a new folder named '{new}' in it.",
        metadata={"folder": folder, "new": new, "files": files},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


async def created(session: cb.Session, meta: dict[str, object]) -> bool:
    found = await listing(session, str(meta["folder"]))
    return found is not None and found.get(str(meta["new"])) == "d"


setup = folder_setup()


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    new = f"{task.metadata['folder']}/{task.metadata['new']}"
    before, after = await files_since_setup(task, session)
    asked = new in after and after[new].kind == "dir"
    kept = nothing_else_changed(task, before, {path: state for path, state in after.items() if path != new})
    return [1.0 if asked and kept else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, key("ctrl+shift+n"))
    await submit_dialog(session, "Creating New Folder", meta["new"])

    await until(created, session, meta, "the new folder")


# The wrong ways wait for their damage to be done, as the oracle waits for its folder: one that
# gave up after a fixed pause left the right end state when a loaded machine was slow to move the
# file, and scored 1.0 (test/5 in a sweep under a load of 15).


@cb.wrong_way
async def others_deleted(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    view = await window(session, meta["folder"])
    await act(session, click_at(session, view["bounds"], -40, -60), key("ctrl+a"), key("delete"))
    await submit_dialog(session, "Confirm")

    async def emptied() -> bool:
        return await listing(session, meta["folder"]) == {}

    await wait_for(emptied, "the files to be deleted")
    await act(session, key("ctrl+shift+n"))
    await submit_dialog(session, "Creating New Folder", meta["new"])

    await until(created, session, meta, "the new folder")


@cb.wrong_way
async def neighbour_moved_into_it(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    moved = next(iter(meta["files"])).split("/", 1)[1]
    await act(session, key("ctrl+shift+n"))
    await submit_dialog(session, "Creating New Folder", meta["new"])
    await paste_into(session, meta["folder"], moved, meta["new"], cut=True)

    async def inside() -> bool:
        found = await listing(session, meta["folder"])
        return found is not None and moved not in found and found.get(f"{meta['new']}/{moved}") == "f"

    await wait_for(inside, "the file to be moved into the new folder")
