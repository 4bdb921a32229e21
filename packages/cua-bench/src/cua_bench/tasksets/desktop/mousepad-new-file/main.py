"""mousepad-new-file: type a short text into a new Mousepad document and save it under a given name."""

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
    same_text,
    sentence,
    start,
    submit_dialog,
    type_text,
    window,
    write_files,
)

NAME = "mousepad-new-file"


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    name = file_name(rng, rng.choice([".txt", ".md"]))
    lines = [sentence(rng) for _ in range(rng.randint(1, 3))]
    shown = " / ".join(f"'{line}'" for line in lines)
    return cb.Task(
        description=f"In the Mousepad editor, write these {len(lines)} line(s), one per line: {shown}. "
        f"Then save the document as ~/{folder}/{name}.",
        metadata={"path": f"{folder}/{name}", "text": "\n".join(lines), "folder": folder},
        max_steps=15,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, {f"{task.metadata['folder']}/.keep": ""})
    await start(session, "mousepad", title=lambda title: title.endswith(" - Mousepad"))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if same_text(await read_text(session, task.metadata["path"]), task.metadata["text"]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, meta["text"])
    await act(session, key("ctrl+s"))
    await submit_dialog(session, "Save As", f"~/{meta['path']}")
    await window(session, file_title(meta["path"], "Mousepad"))
