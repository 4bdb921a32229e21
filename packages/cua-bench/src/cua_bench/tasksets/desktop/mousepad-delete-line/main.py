"""mousepad-delete-line: delete one whole line of a file open in Mousepad and save."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    WORDS,
    act,
    caret_to,
    distinct,
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

NAME = "mousepad-delete-line"


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.md']))}"
    lines = distinct(rng, rng.randint(3, 8), sentence)
    index = rng.randrange(len(lines))
    return cb.Task(
        description=f"The file ~/{path} is open in Mousepad. Delete the whole line '{lines[index]}' (leave no "
        "empty line in its place), then save the file.",
        metadata={"path": path, "lines": lines, "index": index},
        max_steps=15,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {meta["path"]: "\n".join(meta["lines"]) + "\n"})
    await start(session, "mousepad", meta["path"], title=file_title(meta["path"], "Mousepad"))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    expected = [line for i, line in enumerate(meta["lines"]) if i != meta["index"]]
    text = await read_text(session, meta["path"])
    return [1.0 if text is not None and text.rstrip("\n").split("\n") == expected else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    text = "\n".join(meta["lines"]) + "\n"
    start_of_line = sum(len(line) + 1 for line in meta["lines"][: meta["index"]])
    # Select the line and its newline (shift+down from the line's start), then delete it.
    await act(session, *caret_to(text, start_of_line), key("shift+down"), key("delete"))
    await save_and_wait(session, meta["path"], "Mousepad")
