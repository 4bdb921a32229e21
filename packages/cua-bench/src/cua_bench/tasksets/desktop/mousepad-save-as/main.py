"""mousepad-save-as: save a copy of the file open in Mousepad under a new name (File > Save As)."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    WORDS,
    act,
    distinct,
    file_name,
    file_title,
    key,
    loaders,
    read_text,
    sentence,
    start,
    submit_dialog,
    window,
    write_files,
)

NAME = "mousepad-save-as"
TARGETS = ("backup", "archive", "shared", "copies", "review")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    old, new = distinct(rng, 2, lambda r: file_name(r, r.choice([".txt", ".md"])))
    target = rng.choice([folder, rng.choice(TARGETS)])
    text = "\n".join(sentence(rng) for _ in range(rng.randint(2, 6))) + "\n"
    return cb.Task(
        description=f"The file ~/{folder}/{old} is open in Mousepad. Use Save As to save it also as "
        f"~/{target}/{new}; the original file must stay as it is.",
        metadata={"path": f"{folder}/{old}", "copy": f"{target}/{new}", "text": text, "target": target},
        max_steps=15,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {meta["path"]: meta["text"], f"{meta['target']}/.keep": ""})
    await start(session, "mousepad", meta["path"], title=file_title(meta["path"], "Mousepad"))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    copy, original = await read_text(session, meta["copy"]), await read_text(session, meta["path"])
    return [1.0 if copy == meta["text"] and original == meta["text"] else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, key("ctrl+shift+s"))
    await submit_dialog(session, "Save As", f"~/{meta['copy']}")
    await window(session, file_title(meta["copy"], "Mousepad"))
