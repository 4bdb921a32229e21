"""pcmanfm-move-file: move a file into a subfolder with the PCManFM file manager (cut and paste, or drag).

The evaluator checks the file is gone from the folder and the subfolder holds it with its content,
and that nothing else under home changed (a snapshot taken at setup). Wrong ways:
``empty_file_at_target`` (a new empty file of that name in the subfolder, the original deleted:
the content lost) and ``neighbour_deleted`` (the oracle's steps, then another file deleted).
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
    loaders,
    sentence,
    submit_dialog,
    wait_path,
)
from cua_bench_tasks_desktop._pcmanfm import (
    files_in,
    folder_setup,
    hide,
    moved_evaluator,
    open_location,
    parent_folder,
    paste_into,
    paste_then_trash_a_neighbour,
    trash_file,
    until,
)

NAME = "pcmanfm-move-file"
FOLDERS = ("Documents", "Downloads", "Desktop", "Inbox")
SUBFOLDERS = ("archive", "done", "invoices", "photos", "receipts", "old", "keep", "travel")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    subfolders = rng.sample(SUBFOLDERS, rng.randint(1, 3))
    target = rng.choice(subfolders)
    names = distinct(rng, rng.randint(2, 5), lambda r: file_name(r, r.choice([".txt", ".pdf", ".csv"])))
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in names}
    files.update({f"{folder}/{sub}/.keep": "" for sub in subfolders})
    name = names[0]
    after_move = dict(files)
    after_move[f"{folder}/{target}/{name}"] = after_move.pop(f"{folder}/{name}")
    return cb.Task(
        description=f"The file manager shows ~/{folder}. Move the file {name} into its subfolder {target}.",
        metadata={"folder": folder, "name": name, "target": target, "files": files, "after_move": after_move},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


async def shows_moved(session: cb.Session, meta: Meta) -> bool:
    return await files_in(session, meta["folder"]) == set(meta["after_move"])


def paths(meta: Meta) -> list[str]:
    """The file, and where it is asked to go."""
    return [f"{meta['folder']}/{meta['name']}", f"{meta['folder']}/{meta['target']}/{meta['name']}"]


setup = folder_setup()
evaluate = moved_evaluator(paths)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    # On a busy host the type-ahead sometimes misses the file, so ctrl+x cuts nothing and the paste
    # moves nothing; a person would look, go back and try again, and so does the oracle.
    for attempt in range(3):
        await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=True)
        try:
            await until(shows_moved, session, meta, "the move", timeout=8.0)
            return
        except cb.TaskError:
            if attempt == 2:
                raise
            await parent_folder(session, meta["folder"])


@cb.wrong_way
async def empty_file_at_target(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_location(session, meta["target"])
    await act(session, key("ctrl+alt+n"))  # File > Create New > Empty File
    await submit_dialog(session, lambda title: title.startswith("Creating"), meta["name"])
    await parent_folder(session, meta["folder"])
    await trash_file(session, meta["folder"], meta["name"])


@cb.wrong_way
async def neighbour_deleted(task: cb.Task, session: cb.Session) -> None:
    await paste_then_trash_a_neighbour(session, task.metadata, cut=True)


@cb.wrong_way
async def copied_and_original_hidden(task: cb.Task, session: cb.Session) -> None:
    """Copied into the subfolder, and the original renamed to a hidden ``.name`` instead of moved."""
    meta = task.metadata
    await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=False)
    await wait_path(session, f"{meta['folder']}/{meta['target']}/{meta['name']}", lambda text: text is not None)
    await parent_folder(session, meta["folder"])
    await hide(session, meta["folder"], meta["name"])
