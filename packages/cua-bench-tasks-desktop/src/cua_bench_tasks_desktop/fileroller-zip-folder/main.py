"""fileroller-zip-folder: in File Roller, make a new .zip archive in the home folder holding one folder.

The oracle presses ctrl+N, types the name, picks ``.zip`` in the New Archive dialog's format list and
presses Create, then Add: in the Add Files dialog it goes from Home down to the folder's parent,
ticks the folder's check box and presses Add.
The evaluator reads ``~/NAME.zip`` by content (``_archive.read_archive``): a zip whose file members are
exactly the folder's files under ``FOLDER/`` with their bytes, no other member; a file of its own, and
no other file under home changed.
Wrong ways: ``as_tar_gz`` (the default .tar.gz kept: another file, no zip), ``neighbour_added_too`` (a
file beside the folder added as well: an extra member) and ``files_without_their_folder`` (the folder's
files added from inside it: members without ``FOLDER/``).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._archive import (
    add_files,
    archive_score,
    new_archive,
    start_empty,
)
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    distinct,
    file_name,
    loaders,
    sentence,
)

NAME = "fileroller-zip-folder"
WAIVED = OUTPUT_IS_THE_WORK
PARENTS = ("Documents", "Projects", "Work", "Shared")
FOLDERS = ("photos", "invoices", "letters", "slides", "drafts", "receipts", "notes", "scans")


def build(rng: random.Random) -> cb.Task:
    parent = rng.choice(PARENTS)
    folder, other = rng.sample(FOLDERS, 2)
    names = distinct(rng, rng.randint(3, 6), lambda r: file_name(r, r.choice([".txt", ".md", ".csv"])))
    inside, beside = names[: rng.randint(2, len(names) - 1)], names
    files = {f"{parent}/{folder}/{name}": sentence(rng) + "\n" for name in inside}
    files.update({f"{parent}/{name}": sentence(rng) + "\n" for name in beside[len(inside) :]})
    files[f"{parent}/{other}/{inside[0]}"] = sentence(rng) + "\n"
    stem = f"{folder}-{rng.choice(WORDS)}-{rng.randint(2015, 2031)}"
    return cb.Task(
        description=f"Archive Manager (File Roller) is open. Make a new zip archive ~/{stem}.zip that holds the "
        f"folder ~/{parent}/{folder} with its files (stored under {folder}/ in the archive), and nothing else.",
        metadata={
            "parent": parent,
            "folder": folder,
            "stem": stem,
            "files": files,
            "members": {f"{folder}/{name}": files[f"{parent}/{folder}/{name}"] for name in inside},
            "beside": beside[len(inside) :],
        },
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await start_empty(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await archive_score(task, session, f"{meta['stem']}.zip", "zip", meta["members"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await new_archive(session, meta["stem"], ".zip")
    await add_files(session, f"{meta['stem']}.zip", meta["parent"], [meta["folder"]])


@cb.wrong_way
async def as_tar_gz(task: cb.Task, session: cb.Session) -> None:
    """The format list left at its .tar.gz: ~/NAME.tar.gz holds the folder, and there is no zip."""
    meta = task.metadata
    await new_archive(session, meta["stem"], ".tar.gz")
    await add_files(session, f"{meta['stem']}.tar.gz", meta["parent"], [meta["folder"]])


@cb.wrong_way
async def neighbour_added_too(task: cb.Task, session: cb.Session) -> None:
    """The folder and a file beside it ticked together: one member too many."""
    meta = task.metadata
    await new_archive(session, meta["stem"], ".zip")
    await add_files(session, f"{meta['stem']}.zip", meta["parent"], [meta["folder"], meta["beside"][0]])


@cb.wrong_way
async def files_without_their_folder(task: cb.Task, session: cb.Session) -> None:
    """The folder opened in the Add Files dialog and its files ticked: the members lack ``FOLDER/``."""
    meta = task.metadata
    names = [member.split("/", 1)[1] for member in meta["members"]]
    await new_archive(session, meta["stem"], ".zip")
    await add_files(session, f"{meta['stem']}.zip", f"{meta['parent']}/{meta['folder']}", names)
