"""mousepad-insert-line: insert a line at the top of a file, or right below a given line, and save.

The evaluator checks the file's whole text (every old line as it was, the new one at its place) and
that no other file under home changed.
Wrong ways: ``inserts_one_line_too_low`` and ``oracle_then_deletes_the_last_line``.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    caret_to,
    distinct,
    edit_and_save,
    file_name,
    key,
    loaders,
    open_in_mousepad,
    saved_text_is,
    sentence,
)
from cua_core import TypeText

NAME = "mousepad-insert-line"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.md']))}"
    lines = distinct(rng, rng.randint(3, 7) + 1, sentence)
    line, lines = lines[0], lines[1:]
    after = rng.randrange(-1, len(lines) - 1)  # -1: at the very top
    where = "as the first line of the file" if after < 0 else f"directly below the line '{lines[after]}'"
    return cb.Task(
        description=f"The file ~/{path} is open in Mousepad. Insert the new line '{line}' {where}, then save the file.",
        metadata={"path": path, "lines": lines, "line": line, "after": after},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_mousepad(task, session, "\n".join(meta["lines"]) + "\n")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    expected = list(meta["lines"])
    expected.insert(meta["after"] + 1, meta["line"])
    return await saved_text_is(task, session, "\n".join(expected))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await insert(session, task.metadata, task.metadata["after"])


async def insert(session: cb.Session, meta: dict[str, Any], after: int) -> None:
    text = "\n".join(meta["lines"]) + "\n"
    below = sum(len(line) + 1 for line in meta["lines"][: after + 1])
    await edit_and_save(session, meta["path"], *caret_to(text, below), TypeText(meta["line"], press_enter=True))


@cb.wrong_way
async def inserts_one_line_too_low(task: cb.Task, session: cb.Session) -> None:
    """The new line one line further down than asked."""
    await insert(session, task.metadata, task.metadata["after"] + 1)


@cb.wrong_way
async def oracle_then_deletes_the_last_line(task: cb.Task, session: cb.Session) -> None:
    """The line inserted, then the file's last line deleted."""
    await solve(task, session)
    await edit_and_save(session, task.metadata["path"], key("ctrl+end"), key("shift+up"), key("delete"))
