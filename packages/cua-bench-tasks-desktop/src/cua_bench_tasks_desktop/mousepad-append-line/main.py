"""mousepad-append-line: add a line at the end of a file open in Mousepad and save it.

The evaluator checks the file's whole text (every old line as it was, the new one last) and that no
other file under home changed.
Wrong ways: ``inserts_at_the_top`` (the line first, not last) and ``oracle_then_deletes_the_first_line``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    edit_and_save,
    file_name,
    key,
    loaders,
    open_in_mousepad,
    saved_text_is,
    sentence,
)
from cua_core import TypeText

NAME = "mousepad-append-line"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.md']))}"
    text = "\n".join(sentence(rng) for _ in range(rng.randint(2, 8))) + "\n"
    line = sentence(rng)
    return cb.Task(
        description=f"The file ~/{path} is open in Mousepad. Add the line '{line}' after its last line, "
        "then save the file.",
        metadata={"path": path, "text": text, "line": line},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_mousepad(task, session, meta["text"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await saved_text_is(task, session, task.metadata["text"] + task.metadata["line"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await edit_and_save(session, meta["path"], key("ctrl+end"), TypeText(meta["line"], press_enter=True))


@cb.wrong_way
async def inserts_at_the_top(task: cb.Task, session: cb.Session) -> None:
    """The line added before the first line rather than after the last."""
    await edit_and_save(
        session, task.metadata["path"], key("ctrl+home"), TypeText(task.metadata["line"], press_enter=True)
    )


@cb.wrong_way
async def oracle_then_deletes_the_first_line(task: cb.Task, session: cb.Session) -> None:
    """The line appended, then the first line deleted."""
    await solve(task, session)
    await edit_and_save(session, task.metadata["path"], key("ctrl+home"), key("shift+down"), key("delete"))
