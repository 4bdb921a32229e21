"""xterm-delete-files: in a real xterm, delete every file of one extension in a folder, keeping the rest."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    distinct,
    file_name,
    listing,
    loaders,
    sentence,
    shell,
    start,
    type_text,
    wait_for,
    write_files,
)

NAME = "xterm-delete-files"
EXTENSIONS = (".log", ".tmp", ".bak", ".old")
KEEP = (".txt", ".md", ".csv", ".json")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(["logs", "build", "cache", "output", "scratch"])
    ext = rng.choice(EXTENSIONS)
    doomed = distinct(rng, rng.randint(2, 5), lambda r: file_name(r, ext))
    kept = distinct(rng, rng.randint(2, 4), lambda r: file_name(r, r.choice(KEEP)))
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in doomed + kept}
    return cb.Task(
        description=f"In the terminal, delete every file ending in {ext} inside ~/{folder}; "
        "leave the other files there untouched.",
        metadata={"folder": folder, "ext": ext, "kept": sorted(kept), "files": files},
        max_steps=10,
    )


load_train, load_test = loaders(NAME, build)


async def cleaned(session: cb.Session, meta: dict[str, object]) -> bool:
    folder, kept = meta["folder"], meta["kept"]
    assert isinstance(folder, str) and isinstance(kept, list)
    found = await listing(session, folder)
    return found is not None and sorted(found) == kept


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["files"])
    await start(session, "xterm")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await cleaned(session, task.metadata) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, f"rm -- {shell(meta['folder'])}/*{meta['ext']}", enter=True)

    async def done() -> bool:
        return await cleaned(session, meta)

    await wait_for(done, "the files to go")
