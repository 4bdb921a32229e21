"""xterm-append-line: in a real xterm, add one line at the end of an existing file, keeping the rest."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    WORDS,
    file_name,
    loaders,
    read_text,
    sentence,
    shell,
    start,
    type_text,
    wait_path,
    write_files,
)

NAME = "xterm-append-line"


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.log', '.md']))}"
    lines = [sentence(rng) for _ in range(rng.randint(2, 6))]
    line = sentence(rng)
    return cb.Task(
        description=f"In the terminal, append the line '{line}' to the end of the file ~/{path}, "
        "keeping its current lines.",
        metadata={"path": path, "before": "\n".join(lines) + "\n", "line": line},
        max_steps=10,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, str]) -> str:
    return meta["before"] + meta["line"] + "\n"


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, {task.metadata["path"]: task.metadata["before"]})
    await start(session, "xterm")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    text = await read_text(session, task.metadata["path"])
    return [1.0 if text is not None and text.rstrip("\n") == expected(task.metadata).rstrip("\n") else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, f"echo {shell(meta['line'])} >> {shell(meta['path'])}", enter=True)
    await wait_path(session, meta["path"], lambda text: text == expected(meta))
