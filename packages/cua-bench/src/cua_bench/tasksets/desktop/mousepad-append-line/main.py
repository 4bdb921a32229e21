"""mousepad-append-line: add a line at the end of a file open in Mousepad and save it."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    WORDS,
    act,
    file_name,
    file_title,
    key,
    loaders,
    read_text,
    save_and_wait,
    sentence,
    start,
    write_files,
)
from cua_core.actions import TypeText

NAME = "mousepad-append-line"


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.md']))}"
    text = "\n".join(sentence(rng) for _ in range(rng.randint(2, 8))) + "\n"
    line = sentence(rng)
    return cb.Task(
        description=f"The file ~/{path} is open in Mousepad. Add the line '{line}' after its last line, "
        "then save the file.",
        metadata={"path": path, "text": text, "line": line},
        max_steps=15,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {meta["path"]: meta["text"]})
    await start(session, "mousepad", meta["path"], title=file_title(meta["path"], "Mousepad"))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    text = await read_text(session, meta["path"])
    expected = meta["text"] + meta["line"]
    return [1.0 if text is not None and text.rstrip("\n") == expected else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, key("ctrl+end"), TypeText(meta["line"], press_enter=True))
    await save_and_wait(session, meta["path"], "Mousepad")
