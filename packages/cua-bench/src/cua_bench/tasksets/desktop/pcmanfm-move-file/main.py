"""pcmanfm-move-file: move a file into a subfolder with the PCManFM file manager (cut and paste, or drag).

The evaluator checks the file is gone from the folder and the subfolder holds it with its content,
and that nothing else under home changed (a snapshot taken at setup). Wrong ways:
``empty_file_at_target`` (a new empty file of that name in the subfolder, the original deleted:
the content lost) and ``neighbour_deleted`` (the oracle's steps, then another file deleted).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    act,
    distinct,
    file_changes,
    file_name,
    files_since_setup,
    key,
    listing,
    loaders,
    moved,
    open_location,
    parent_folder,
    paste_into,
    remember_files,
    select_file,
    sentence,
    start,
    submit_dialog,
    trash_file,
    wait_for,
    wait_path,
    write_files,
)
from cua_core.actions import Wait

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


async def shows_moved(session: cb.Session, meta: dict[str, object]) -> bool:
    folder, expected = meta["folder"], meta["after_move"]
    assert isinstance(folder, str) and isinstance(expected, dict)
    found = await listing(session, folder)
    files = {f"{folder}/{path}" for path, kind in (found or {}).items() if kind == "f"}
    return found is not None and files == set(expected)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["files"])
    await start(session, "pcmanfm", task.metadata["folder"], title=task.metadata["folder"])
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    source = f"{meta['folder']}/{meta['name']}"
    target = f"{meta['folder']}/{meta['target']}/{meta['name']}"
    before, after = await files_since_setup(task, session)
    asked = moved(before, after, source, target)
    kept = not file_changes(before, after, expect=[source, target])
    return [1.0 if asked and kept else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata

    async def done() -> bool:
        return await shows_moved(session, meta)

    # On a busy host the type-ahead sometimes misses the file, so ctrl+x cuts nothing and the paste
    # moves nothing; a person would look, go back and try again, and so does the oracle.
    for attempt in range(3):
        await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=True)
        try:
            await wait_for(done, "the move", timeout=8.0)
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
    meta = task.metadata
    await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=True)
    await act(session, Wait(1.0))
    await parent_folder(session, meta["folder"])
    names = [path.split("/", 1)[1] for path in meta["files"] if path.count("/") == 1]
    await trash_file(session, meta["folder"], next(name for name in names if name != meta["name"]))


@cb.wrong_way
async def copied_and_original_hidden(task: cb.Task, session: cb.Session) -> None:
    """Copied into the subfolder, and the original renamed to a hidden ``.name`` instead of moved."""
    meta = task.metadata
    await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=False)
    await wait_path(session, f"{meta['folder']}/{meta['target']}/{meta['name']}", lambda text: text is not None)
    await parent_folder(session, meta["folder"])
    await select_file(session, meta["folder"], meta["name"])
    await act(session, key("f2"))
    await submit_dialog(session, "Rename File", "." + meta["name"])
    await wait_path(session, f"{meta['folder']}/.{meta['name']}", lambda text: text is not None)
