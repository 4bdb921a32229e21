"""pcmanfm-move-file: move a file into a subfolder with the PCManFM file manager (cut and paste, or drag)."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    act,
    distinct,
    file_name,
    key,
    listing,
    loaders,
    open_location,
    select_file,
    sentence,
    start,
    wait_for,
    write_files,
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
    moved = dict(files)
    moved[f"{folder}/{target}/{name}"] = moved.pop(f"{folder}/{name}")
    return cb.Task(
        description=f"The file manager shows ~/{folder}. Move the file {name} into its subfolder {target}.",
        metadata={"folder": folder, "name": name, "target": target, "files": files, "moved": moved},
        max_steps=15,
    )


load_train, load_test = loaders(NAME, build)


async def moved(session: cb.Session, meta: dict[str, object]) -> bool:
    folder, expected = meta["folder"], meta["moved"]
    assert isinstance(folder, str) and isinstance(expected, dict)
    found = await listing(session, folder)
    files = {f"{folder}/{path}" for path, kind in (found or {}).items() if kind == "f"}
    return found is not None and files == set(expected)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["files"])
    await start(session, "pcmanfm", task.metadata["folder"], title=task.metadata["folder"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await moved(session, task.metadata) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await select_file(session, meta["folder"], meta["name"])
    await act(session, key("ctrl+x"))
    await open_location(session, meta["target"])
    await act(session, key("ctrl+v"))

    async def done() -> bool:
        return await moved(session, meta)

    await wait_for(done, "the move")
