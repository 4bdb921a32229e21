"""pcmanfm-copy-file: copy a file into a subfolder with the PCManFM file manager, keeping the original.

The evaluator checks the copy holds the original's content, and that nothing else under home
changed (a snapshot taken at setup: the original and the other files are there, unchanged).
Wrong ways: ``moved_not_copied`` (cut instead of copy) and ``neighbour_deleted`` (the oracle's
steps, then another file of the folder deleted).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench.filestate import Snapshot, is_copy
from cua_bench_tasks_desktop._common import act, distinct, file_name, loaders, read_text, sentence, shell
from cua_bench_tasks_desktop._pcmanfm import (
    change_evaluator,
    files_in,
    folder_setup,
    in_folder_terminal,
    paste_into,
    paste_then_trash_a_neighbour,
    until,
)
from cua_core import Wait

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


def copy_of(meta: Meta) -> str:
    return f"{meta['folder']}/{meta['target']}/{meta['name']}"


async def copied(session: cb.Session, meta: Meta) -> bool:
    expected, copy = meta["copied"], copy_of(meta)
    if await files_in(session, meta["folder"]) != set(expected):
        return False
    return bool(await read_text(session, copy) == expected[copy])


def asked(meta: Meta, before: Snapshot, after: Snapshot) -> bool:
    return is_copy(after, copy_of(meta), before[f"{meta['folder']}/{meta['name']}"].sha256)


setup = folder_setup()
evaluate = change_evaluator(asked, lambda meta: [copy_of(meta)])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=False)
    await until(copied, session, meta, "the copy")


@cb.wrong_way
async def moved_not_copied(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=True)
    await act(session, Wait(1.0))


@cb.wrong_way
async def neighbour_deleted(task: cb.Task, session: cb.Session) -> None:
    await paste_then_trash_a_neighbour(session, task.metadata, cut=False)


@cb.wrong_way
async def hard_link_from_terminal(task: cb.Task, session: cb.Session) -> None:
    """F4 opens a terminal in the folder, and ``ln`` makes a second name for the same inode."""
    meta = task.metadata
    await in_folder_terminal(session, f"ln -- {shell(meta['name'])} {shell(meta['target'])}/")
