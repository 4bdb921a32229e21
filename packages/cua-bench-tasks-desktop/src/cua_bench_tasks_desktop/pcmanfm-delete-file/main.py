"""pcmanfm-delete-file: delete one file (to the trash is fine) in the PCManFM file manager, keeping the others.

The evaluator checks the file is gone, and that nothing else under home changed (a snapshot taken
at setup, hidden folders such as the trash left out: the other files are there, unchanged, and the
file was not moved somewhere else in home). Wrong ways: ``moved_out_not_deleted`` (cut and pasted
into the parent folder) and ``neighbour_deleted_too`` (the oracle's steps, then a second file
deleted).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench.filestate import Snapshot
from cua_bench_tasks_desktop._common import (
    TRASH,
    act,
    distinct,
    file_name,
    gone,
    key,
    listing,
    loaders,
    sentence,
)
from cua_bench_tasks_desktop._pcmanfm import carry_to_parent, change_evaluator, folder_setup, hide, trash_file, until
from cua_core import Wait

NAME = "pcmanfm-delete-file"
FOLDERS = ("Documents", "Downloads", "Desktop", "Temp")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    names = distinct(rng, rng.randint(3, 7), lambda r: file_name(r, r.choice([".txt", ".log", ".csv", ".tmp"])))
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in names}
    return cb.Task(
        description=f"The file manager shows ~/{folder}. Delete the file {names[0]} (moving it to the trash is "
        "fine); keep the other files.",
        metadata={"folder": folder, "name": names[0], "kept": sorted(names[1:]), "files": files},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


async def deleted(session: cb.Session, meta: dict[str, object]) -> bool:
    found = await listing(session, str(meta["folder"]))
    return found is not None and sorted(found) == meta["kept"]


def asked(meta: Meta, before: Snapshot, after: Snapshot) -> bool:
    return gone(before, after, f"{meta['folder']}/{meta['name']}", trash=True)  # the instruction allows the trash


setup = folder_setup()
evaluate = change_evaluator(asked, lambda meta: [f"{meta['folder']}/{meta['name']}", TRASH])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await trash_file(session, meta["folder"], meta["name"])  # "move to the trash?" Yes is the default button
    await until(deleted, session, meta, "the file to go")


@cb.wrong_way
async def moved_out_not_deleted(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await carry_to_parent(session, meta["folder"], meta["name"], cut=True)
    await act(session, key("ctrl+v"), Wait(1.0))


@cb.wrong_way
async def neighbour_deleted_too(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await trash_file(session, meta["folder"], meta["name"])
    await trash_file(session, meta["folder"], meta["kept"][0])


@cb.wrong_way
async def renamed_hidden(task: cb.Task, session: cb.Session) -> None:
    """The red team's way: F2 and rename it to ``.name``; the file manager stops showing it."""
    await hide(session, task.metadata["folder"], task.metadata["name"])
