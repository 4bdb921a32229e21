"""mousepad-save-as: save a copy of the file open in Mousepad under a new name (File > Save As).

The evaluator checks the copy's text, the original's, and that no other file under home appeared or
changed.
Wrong ways: ``edits_then_saves_as`` (a word typed into the document first: the copy is not a copy)
and ``saves_a_stray_copy_first`` (Save As under a misspelt name, then under the right one).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    distinct,
    file_name,
    file_title,
    files_since_setup,
    key,
    loaders,
    nothing_else_changed,
    output_text,
    remember_files,
    sentence,
    start,
    write_files,
)
from cua_bench_tasks_desktop._common import (
    save_as as save_file_as,
)
from cua_core import TypeText

NAME = "mousepad-save-as"
WAIVED = OUTPUT_IS_THE_WORK
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
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {meta["path"]: meta["text"], f"{meta['target']}/.keep": ""})
    await start(session, "mousepad", meta["path"], title=file_title(meta["path"], "Mousepad"))
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    copy, original = await output_text(session, after, meta["copy"]), await output_text(session, after, meta["path"])
    ok = copy == meta["text"] and original == meta["text"]
    return [1.0 if ok and nothing_else_changed(task, before, after, expect=[meta["copy"]]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await save_as(session, task.metadata["copy"])


async def save_as(session: cb.Session, path: str) -> None:
    await save_file_as(session, "ctrl+shift+s", "Save As", path, "Mousepad")


@cb.wrong_way
async def edits_then_saves_as(task: cb.Task, session: cb.Session) -> None:
    """A word typed at the top of the document before Save As: the original stays, the copy differs."""
    await act(session, key("ctrl+home"), TypeText("copy "))
    await save_as(session, task.metadata["copy"])


@cb.wrong_way
async def saves_a_stray_copy_first(task: cb.Task, session: cb.Session) -> None:
    """Save As under a misspelt name, then again under the right one: a stray copy is left."""
    folder, name = task.metadata["copy"].rsplit("/", 1)
    await save_as(session, f"{folder}/{name[:2]}{name[3:]}")
    await save_as(session, task.metadata["copy"])
