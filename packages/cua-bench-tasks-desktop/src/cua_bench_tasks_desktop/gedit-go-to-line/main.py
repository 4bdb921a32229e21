"""gedit-go-to-line: insert a new line at a given line number of a file open in gedit, then save.

The oracle opens Go to Line (ctrl+i), types the number and Enter (the caret goes to the start of that
line), types the new line and Enter, and saves with ctrl+s, waiting for gedit's title to lose its ``*``.

The evaluator checks the file's whole text (the new line is line N, every old line kept in order), that
it is the same plain file (one link), and that no other file under home changed.
Wrong ways: ``inserts_after_the_line`` (the new line below line N, so it is line N+1) and
``inserts_at_the_end``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    file_name,
    key,
    loaders,
    saved_text_is,
    sentence,
    wait_for,
)
from cua_bench_tasks_desktop._gedit import find_node, open_in_gedit, save
from cua_core import TypeText, Wait

NAME = "gedit-go-to-line"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng)}"
    lines = [f"{index + 1}. {sentence(rng)}" for index in range(rng.randint(8, 30))]
    line = rng.randint(2, len(lines) - 1)
    new = f"NOTE: {sentence(rng)}"
    return cb.Task(
        description=f"The file ~/{path} is open in gedit. Insert the line '{new}' so that it becomes line {line} "
        f"of the file (the current line {line} and those after it move down by one), then save the file.",
        metadata={"path": path, "text": "\n".join(lines) + "\n", "line": line, "new": new},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: Meta) -> str:
    lines = meta["text"].splitlines()
    return "\n".join([*lines[: meta["line"] - 1], meta["new"], *lines[meta["line"] - 1 :]])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_gedit(task, session, {meta["path"]: meta["text"]}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await saved_text_is(task, session, expected(task.metadata))


async def go_to_line(session: cb.Session, line: int) -> None:
    """ctrl+i until gedit's line entry shows (it opens over the text, named "Search"), the number, Enter."""
    for _attempt in range(3):
        await act(session, key("ctrl+i"))
        try:
            await wait_for(lambda: find_node(session, "text", "Search", "focused"), "the line entry", timeout=5)
            break
        except cb.TaskError:
            continue
    await act(session, key("ctrl+a"), TypeText(str(line)), Wait(0.3), key("enter"))
    await wait_for(lambda: _entry_closed(session), "the line entry to close")


async def _entry_closed(session: cb.Session) -> bool:
    return await find_node(session, "text", "Search") is None


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await go_to_line(session, meta["line"])
    await act(session, key("home"), TypeText(meta["new"]), key("enter"))
    await save(session, meta["path"])


@cb.wrong_way
async def inserts_after_the_line(task: cb.Task, session: cb.Session) -> None:
    """The new line typed below line N (End, Enter, the line): it is line N+1."""
    meta = task.metadata
    await go_to_line(session, meta["line"])
    await act(session, key("end"), key("enter"), TypeText(meta["new"]))
    await save(session, meta["path"])


@cb.wrong_way
async def inserts_at_the_end(task: cb.Task, session: cb.Session) -> None:
    """The new line added as the file's last line."""
    meta = task.metadata
    await act(session, key("ctrl+end"), TypeText(meta["new"]))
    await save(session, meta["path"])
