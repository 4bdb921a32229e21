"""mousepad-delete-line: delete one whole line of a file open in Mousepad and save.

The evaluator checks the file's whole text (every other line as it was, in order, no empty line left)
and that no other file under home changed.
Wrong ways: ``deletes_a_neighbouring_line`` (the line below, or above for the last one, instead) and
``oracle_then_deletes_another_line``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    caret_to,
    distinct,
    edit_and_save,
    file_name,
    key,
    loaders,
    open_in_mousepad,
    save_and_wait,
    saved_text_is,
    sentence,
)

NAME = "mousepad-delete-line"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.md']))}"
    lines = distinct(rng, rng.randint(3, 8), sentence)
    index = rng.randrange(len(lines))
    return cb.Task(
        description=f"The file ~/{path} is open in Mousepad. Delete the whole line '{lines[index]}' (leave no "
        "empty line in its place), then save the file.",
        metadata={"path": path, "lines": lines, "index": index},
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
    expected = [line for i, line in enumerate(meta["lines"]) if i != meta["index"]]
    return await saved_text_is(task, session, "\n".join(expected))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await delete_line(session, meta["lines"], meta["index"])
    await save_and_wait(session, meta["path"], "Mousepad")


async def delete_line(session: cb.Session, lines: list[str], index: int) -> None:
    """Select the line and its newline (shift+down from the line's start), then delete it."""
    text = "\n".join(lines) + "\n"
    start_of_line = sum(len(line) + 1 for line in lines[:index])
    await act(session, *caret_to(text, start_of_line), key("shift+down"), key("delete"))


@cb.wrong_way
async def deletes_a_neighbouring_line(task: cb.Task, session: cb.Session) -> None:
    """Off by one: the line below deleted instead (the one above, for the last line)."""
    meta = task.metadata
    index = meta["index"] + 1 if meta["index"] + 1 < len(meta["lines"]) else meta["index"] - 1
    await delete_line(session, meta["lines"], index)
    await save_and_wait(session, meta["path"], "Mousepad")


@cb.wrong_way
async def oracle_then_deletes_another_line(task: cb.Task, session: cb.Session) -> None:
    """The line deleted, then the line now at its place (or the one before, at the end) deleted too."""
    meta = task.metadata
    rest = [line for i, line in enumerate(meta["lines"]) if i != meta["index"]]
    await delete_line(session, meta["lines"], meta["index"])
    await delete_line(session, rest, min(meta["index"], len(rest) - 1))
    await save_and_wait(session, meta["path"], "Mousepad")


@cb.wrong_way
async def text_deleted_line_left(task: cb.Task, session: cb.Session) -> None:
    """The line's text selected and deleted, its empty line left in place."""
    meta = task.metadata
    text = "\n".join(meta["lines"]) + "\n"
    start_of_line = sum(len(line) + 1 for line in meta["lines"][: meta["index"]])
    await edit_and_save(session, meta["path"], *caret_to(text, start_of_line), key("shift+end"), key("delete"))
