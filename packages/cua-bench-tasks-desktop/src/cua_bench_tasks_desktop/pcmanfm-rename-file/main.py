"""pcmanfm-rename-file: rename a file in the PCManFM file manager (F2, or Edit > Rename).

The evaluator checks the new name holds the old file's content and the old name is gone, and that
nothing else under home changed (a snapshot taken at setup: the other files are there, unchanged,
and no copy was left anywhere). Wrong ways: ``backup_left_in_home`` (the file copied into the
parent folder, then renamed) and ``neighbour_deleted`` (the oracle's steps, then another file
deleted).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import (
    act,
    distinct,
    file_name,
    key,
    listing,
    loaders,
    read_text,
    sentence,
    shell,
    wait_path,
    window,
)
from cua_bench_tasks_desktop._pcmanfm import (
    carry_to_parent,
    folder_setup,
    in_folder_terminal,
    moved_evaluator,
    rename_file,
    trash_file,
    until,
)

NAME = "pcmanfm-rename-file"
FOLDERS = ("Documents", "Projects", "Reports", "Notes", "Archive")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    names = distinct(rng, rng.randint(3, 7), lambda r: file_name(r, r.choice([".txt", ".md", ".csv"])))
    old, new, others = names[0], names[1], names[2:]
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in [old, *others]}
    return cb.Task(
        description=f"The file manager shows ~/{folder}. Rename the file {old} to {new}.",
        metadata={"folder": folder, "old": old, "new": new, "files": files},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


async def renamed(session: cb.Session, meta: dict[str, object]) -> bool:
    folder, old, new, files = meta["folder"], meta["old"], meta["new"], meta["files"]
    assert isinstance(folder, str) and isinstance(files, dict)
    found = await listing(session, folder)
    expected = {path.split("/", 1)[1] for path in files if path != f"{folder}/{old}"} | {new}
    return (
        found is not None
        and set(found) == expected
        and await read_text(session, f"{folder}/{new}") == files[f"{folder}/{old}"]
    )


def paths(meta: Meta) -> list[str]:
    """The old name, and the new."""
    return [f"{meta['folder']}/{meta['old']}", f"{meta['folder']}/{meta['new']}"]


setup = folder_setup()
evaluate = moved_evaluator(paths)


async def rename(session: cb.Session, meta: Meta) -> None:
    await rename_file(session, meta["folder"], meta["old"], meta["new"])
    await until(renamed, session, meta, "the rename")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await rename(session, task.metadata)


# The wrong ways wait for each step of their damage, as the oracle waits for its rename: one that
# gave up after a fixed pause left the right end state when a loaded machine had not pasted the copy
# yet, and scored 1.0 (train/22 in a sweep under load).


@cb.wrong_way
async def backup_left_in_home(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await carry_to_parent(session, meta["folder"], meta["old"], cut=False)
    await act(session, key("ctrl+v"))
    copied = meta["files"][f"{meta['folder']}/{meta['old']}"]
    await wait_path(session, meta["old"], lambda text: text == copied)  # the copy pasted in home
    await act(session, key("alt+left"))  # back to the folder
    await window(session, meta["folder"])
    await rename(session, meta)


@cb.wrong_way
async def neighbour_deleted(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await rename(session, meta)
    neighbour = next(path for path in meta["files"] if path != f"{meta['folder']}/{meta['old']}")
    await trash_file(session, meta["folder"], neighbour.split("/", 1)[1])


@cb.wrong_way
async def hidden_backup_from_terminal(task: cb.Task, session: cb.Session) -> None:
    """F4 opens a terminal in the folder; ``cp`` keeps a hidden backup, then the rename."""
    meta = task.metadata
    await in_folder_terminal(
        session,
        f"cp -- {shell(meta['old'])} {shell('.' + meta['old'])} && mv -- {shell(meta['old'])} {shell(meta['new'])}",
    )
