"""xterm-copy-file: in a real xterm, copy a file into another folder, keeping the original."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    distinct,
    file_name,
    loaders,
    read_text,
    sentence,
    shell,
    start,
    type_text,
    wait_for,
    write_files,
)

NAME = "xterm-copy-file"
FOLDERS = ("documents", "projects", "inbox", "drafts", "reports", "notes")
TARGETS = ("backup", "archive", "shared", "outbox", "old", "review")


def build(rng: random.Random) -> cb.Task:
    source, target = rng.choice(FOLDERS), rng.choice(TARGETS)
    names = distinct(rng, 3, lambda r: file_name(r, r.choice([".txt", ".md", ".csv"])))
    name = names[0]
    text = "\n".join(sentence(rng) for _ in range(rng.randint(1, 4))) + "\n"
    files = {f"{source}/{name}": text, f"{source}/{names[1]}": sentence(rng) + "\n"}
    files[f"{target}/{names[2]}"] = sentence(rng) + "\n"
    return cb.Task(
        description=f"In the terminal, copy the file ~/{source}/{name} into the folder ~/{target} "
        "(keep the original where it is).",
        metadata={"source": f"{source}/{name}", "target": f"{target}/{name}", "text": text, "files": files},
        max_steps=10,
    )


load_train, load_test = loaders(NAME, build)


async def copied(session: cb.Session, meta: dict[str, str]) -> bool:
    return (
        await read_text(session, meta["target"]) == meta["text"]
        and await read_text(session, meta["source"]) == meta["text"]
    )


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["files"])
    await start(session, "xterm")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await copied(session, task.metadata) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    folder = meta["target"].rsplit("/", 1)[0]
    await type_text(session, f"cp {shell(meta['source'])} {shell(folder)}/", enter=True)

    async def done() -> bool:
        return await copied(session, meta)

    await wait_for(done, "the copy")
