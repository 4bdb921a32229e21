"""gedit-new-file: type a short text into gedit's new document and save it under a given name and folder.

The oracle types the lines into the untitled document gedit opened, presses ctrl+s (a new document
opens Save As), types ``~/folder/name`` and Enter, and waits for gedit's title to show the file.

The evaluator checks the saved file's text (``same_text``), that it is a plain file of its own (one
link), and that no other file under home appeared or changed.
Wrong ways: ``saves_in_home`` (the right name, the home folder) and ``saves_a_stray_copy_first``
(saved under a misspelt name, then Save As under the right one).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    file_name,
    files_since_setup,
    loaders,
    nothing_else_changed,
    output_text,
    same_text,
    sentence,
    text_difference,
)
from cua_bench_tasks_desktop._gedit import open_in_gedit, save_as
from cua_core import TypeText

NAME = "gedit-new-file"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    name = file_name(rng, rng.choice([".txt", ".md", ".log"]))
    lines = [sentence(rng) for _ in range(rng.randint(1, 4))]
    shown = " / ".join(f"'{line}'" for line in lines)
    return cb.Task(
        description=f"In gedit's new document, write these {len(lines)} line(s), one per line: {shown}. "
        f"Then save the document as ~/{folder}/{name}.",
        metadata={"path": f"{folder}/{name}", "text": "\n".join(lines), "folder": folder},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_in_gedit(task, session, {f"{task.metadata['folder']}/.keep": ""}, None)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    actual = await output_text(session, after, meta["path"])
    ok = same_text(actual, meta["text"])
    if not ok:
        task.explain(f"{meta['path']}: {text_difference(actual, meta['text'])}")
    return [1.0 if ok and nothing_else_changed(task, before, after, expect=[meta["path"]]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await act(session, TypeText(task.metadata["text"]))
    await save_as(session, task.metadata["path"], combo="ctrl+s")


@cb.wrong_way
async def saves_in_home(task: cb.Task, session: cb.Session) -> None:
    """The right name, but in the home folder rather than the folder asked for."""
    await act(session, TypeText(task.metadata["text"]))
    await save_as(session, task.metadata["path"].rsplit("/", 1)[-1], combo="ctrl+s")


@cb.wrong_way
async def saves_a_stray_copy_first(task: cb.Task, session: cb.Session) -> None:
    """Saved under a misspelt name first, then Save As under the right one: a stray copy is left."""
    meta = task.metadata
    folder, name = meta["path"].rsplit("/", 1)
    await act(session, TypeText(meta["text"]))
    await save_as(session, f"{folder}/{name[:2]}{name[3:]}", combo="ctrl+s")
    await save_as(session, meta["path"])
