"""xterm-rename-file: in a real xterm, rename a file (its contents unchanged), leaving its neighbours alone."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    WORDS,
    distinct,
    file_name,
    listing,
    loaders,
    read_text,
    sentence,
    shell,
    start,
    type_text,
    wait_for,
    write_files,
)

NAME = "xterm-rename-file"


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    names = distinct(rng, 4, lambda r: file_name(r, r.choice([".txt", ".md", ".csv"])))
    old, new, others = names[0], names[1], names[2:]
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in [old, *others]}
    return cb.Task(
        description=f"In the terminal, rename the file ~/{folder}/{old} to {new} (in the same folder).",
        metadata={"folder": folder, "old": old, "new": new, "files": files},
        max_steps=10,
    )


load_train, load_test = loaders(NAME, build)


async def renamed(session: cb.Session, meta: dict[str, object]) -> bool:
    folder, old, new, files = meta["folder"], meta["old"], meta["new"], meta["files"]
    assert isinstance(folder, str) and isinstance(files, dict)
    found = await listing(session, folder)
    expected = {path.split("/", 1)[1] for path in files if path != f"{folder}/{old}"} | {new}
    if found is None or set(found) != expected:
        return False
    return bool(await read_text(session, f"{folder}/{new}") == files[f"{folder}/{old}"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["files"])
    await start(session, "xterm")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await renamed(session, task.metadata) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, f"cd {shell(meta['folder'])} && mv {shell(meta['old'])} {shell(meta['new'])}", enter=True)

    async def done() -> bool:
        return await renamed(session, meta)

    await wait_for(done, "the renamed file")
