"""xterm-create-file: in a real xterm, create a file in a given folder holding one given line."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    WORDS,
    file_name,
    loaders,
    read_text,
    same_text,
    sentence,
    shell,
    start,
    type_text,
    wait_path,
    write_files,
)

NAME = "xterm-create-file"


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    name = file_name(rng, rng.choice([".txt", ".md", ".log"]))
    text = sentence(rng)
    other = file_name(rng, ".txt")
    while other == name:
        other = file_name(rng, ".txt")
    return cb.Task(
        description=f"In the terminal, create the file ~/{folder}/{name} containing exactly the line: {text}",
        metadata={"folder": folder, "name": name, "text": text, "other": {f"{folder}/{other}": sentence(rng) + "\n"}},
        max_steps=10,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["other"])
    await start(session, "xterm")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    text = await read_text(session, f"{meta['folder']}/{meta['name']}")
    return [1.0 if same_text(text, meta["text"]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    path = f"{meta['folder']}/{meta['name']}"
    await type_text(session, f"echo {shell(meta['text'])} > {shell(path)}", enter=True)
    await wait_path(session, path, lambda text: same_text(text, meta["text"]))
