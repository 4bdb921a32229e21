"""pcmanfm-copy-file: copy a file into a subfolder with the PCManFM file manager, keeping the original.

The evaluator checks the copy holds the original's content, and that nothing else under home
changed (a snapshot taken at setup: the original and the other files are there, unchanged).
Wrong ways: ``moved_not_copied`` (cut instead of copy) and ``neighbour_deleted`` (the oracle's
steps, then another file of the folder deleted).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.filestate import is_copy
from cua_bench.tasksets.desktop._common import (
    act,
    distinct,
    file_changes,
    file_name,
    files_since_setup,
    in_terminal,
    listing,
    loaders,
    parent_folder,
    paste_into,
    read_text,
    remember_files,
    sentence,
    shell,
    start,
    terminal_here,
    trash_file,
    wait_for,
    write_files,
)
from cua_core.actions import Wait

NAME = "pcmanfm-copy-file"
FOLDERS = ("Documents", "Projects", "Shared", "Work")
SUBFOLDERS = ("backup", "drafts", "team", "export", "copies", "review")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    subfolders = rng.sample(SUBFOLDERS, rng.randint(1, 3))
    target = rng.choice(subfolders)
    names = distinct(rng, rng.randint(2, 5), lambda r: file_name(r, r.choice([".txt", ".md", ".csv"])))
    files = {f"{folder}/{name}": "\n".join(sentence(rng) for _ in range(rng.randint(1, 3))) + "\n" for name in names}
    files.update({f"{folder}/{sub}/.keep": "" for sub in subfolders})
    name = names[0]
    copied = {**files, f"{folder}/{target}/{name}": files[f"{folder}/{name}"]}
    return cb.Task(
        description=f"The file manager shows ~/{folder}. Copy the file {name} into its subfolder {target} "
        "(the original stays where it is).",
        metadata={"folder": folder, "name": name, "target": target, "files": files, "copied": copied},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


async def copied(session: cb.Session, meta: dict[str, object]) -> bool:
    folder, expected = meta["folder"], meta["copied"]
    assert isinstance(folder, str) and isinstance(expected, dict)
    found = await listing(session, folder)
    files = {f"{folder}/{path}" for path, kind in (found or {}).items() if kind == "f"}
    if found is None or files != set(expected):
        return False
    copy = f"{folder}/{meta['target']}/{meta['name']}"
    return bool(await read_text(session, copy) == expected[copy])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["files"])
    await start(session, "pcmanfm", task.metadata["folder"], title=task.metadata["folder"])
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    folder = meta["folder"]
    copy = f"{folder}/{meta['target']}/{meta['name']}"
    before, after = await files_since_setup(task, session)
    asked = is_copy(after, copy, before[f"{folder}/{meta['name']}"].sha256)
    kept = not file_changes(before, after, expect=[copy])
    return [1.0 if asked and kept else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=False)

    async def done() -> bool:
        return await copied(session, meta)

    await wait_for(done, "the copy")


@cb.wrong_way
async def moved_not_copied(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=True)
    await act(session, Wait(1.0))


@cb.wrong_way
async def neighbour_deleted(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=False)
    await act(session, Wait(1.0))
    await parent_folder(session, meta["folder"])
    names = [path.split("/", 1)[1] for path in meta["files"] if path.count("/") == 1]
    await trash_file(session, meta["folder"], next(name for name in names if name != meta["name"]))


@cb.wrong_way
async def hard_link_from_terminal(task: cb.Task, session: cb.Session) -> None:
    """F4 opens a terminal in the folder, and ``ln`` makes a second name for the same inode."""
    meta = task.metadata
    await terminal_here(session)
    await in_terminal(session, f"ln -- {shell(meta['name'])} {shell(meta['target'])}/")
