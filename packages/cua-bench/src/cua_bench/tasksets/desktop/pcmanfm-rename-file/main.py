"""pcmanfm-rename-file: rename a file in the PCManFM file manager (F2, or Edit > Rename)."""

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
    read_text,
    select_file,
    sentence,
    start,
    submit_dialog,
    wait_for,
    write_files,
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


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["files"])
    await start(session, "pcmanfm", task.metadata["folder"], title=task.metadata["folder"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await renamed(session, task.metadata) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await select_file(session, meta["folder"], meta["old"])
    await act(session, key("f2"))
    await submit_dialog(session, "Rename File", meta["new"])

    async def done() -> bool:
        return await renamed(session, meta)

    await wait_for(done, "the rename")
