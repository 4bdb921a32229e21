"""mousepad-new-file: type a short text into a new Mousepad document and save it under a given name.

The evaluator checks the saved file's text and that no other file under home appeared or changed.
Wrong ways: ``saves_in_home`` (the right name, the home folder) and ``saves_a_stray_copy_first``
(saved under a misspelt name, then Save As under the right one).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    file_name,
    files_since_setup,
    loaders,
    nothing_else_changed,
    output_text,
    remember_files,
    same_text,
    sentence,
    start,
    type_text,
    write_files,
)
from cua_bench_tasks_desktop._common import (
    save_as as save_file_as,
)

NAME = "mousepad-new-file"
WAIVED = OUTPUT_IS_THE_WORK


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
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, {f"{task.metadata['folder']}/.keep": ""})
    await start(session, "mousepad", title=lambda title: title.endswith(" - Mousepad"))
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    ok = same_text(await output_text(session, after, meta["path"]), meta["text"])
    ok = ok and nothing_else_changed(task, before, after, expect=[meta["path"]])
    return [1.0 if ok else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await type_text(session, task.metadata["text"])
    await save_as(session, "ctrl+s", task.metadata["path"])


async def save_as(session: cb.Session, combo: str, path: str) -> None:
    await save_file_as(session, combo, "Save As", path, "Mousepad")


@cb.wrong_way
async def saves_in_home(task: cb.Task, session: cb.Session) -> None:
    """The right name, but in the home folder rather than the folder asked for."""
    await type_text(session, task.metadata["text"])
    await save_as(session, "ctrl+s", task.metadata["path"].rsplit("/", 1)[-1])


@cb.wrong_way
async def saves_a_stray_copy_first(task: cb.Task, session: cb.Session) -> None:
    """Saved under a misspelt name first, then Save As under the right one: a stray copy is left."""
    meta = task.metadata
    folder, name = meta["path"].rsplit("/", 1)
    await type_text(session, meta["text"])
    await save_as(session, "ctrl+s", f"{folder}/{name[:2]}{name[3:]}")
    await save_as(session, "ctrl+shift+s", meta["path"])


@cb.wrong_way
async def saves_a_hidden_copy_first(task: cb.Task, session: cb.Session) -> None:
    """Saved as a hidden ``.name`` first, then Save As under the right name: a hidden stray is left."""
    meta = task.metadata
    folder, name = meta["path"].rsplit("/", 1)
    await type_text(session, meta["text"])
    await save_as(session, "ctrl+s", f"{folder}/.{name}")
    await save_as(session, "ctrl+shift+s", meta["path"])
