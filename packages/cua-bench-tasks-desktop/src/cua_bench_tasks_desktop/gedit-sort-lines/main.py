"""gedit-sort-lines: sort a file's lines with gedit's Tools > Sort (a core plugin), with the options asked, and save.

The oracle opens the main menu (the window's menu button, found in the accessibility tree), Tools,
Sort…; in the Sort dialog it ticks "Reverse order" and "Remove duplicates" as the variant asks
(clicking each box until the tree shows it as wanted), clicks Sort, and saves with ctrl+s.

The lines are single lowercase words, so every collation (gedit compares with the locale's) orders them
as Python does. The evaluator checks the file's whole text (sorted, reversed and without repeats as
asked; gedit's Sort ends its text with a newline and gedit adds one on save, so one empty last line is
allowed, no more), that it is the same plain file (one link), and that no other file under home changed.
Wrong ways: ``reverse_flipped`` (the other order than the one asked) and ``sorted_not_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import (
    ADJECTIVES,
    NOUNS,
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    file_name,
    files_since_setup,
    loaders,
    no_window,
    nothing_else_changed,
    output_text,
    text_difference,
    wait_for,
    window,
)
from cua_bench_tasks_desktop._gedit import click_node, find_node, from_menu, open_in_gedit, save
from cua_core import Wait

NAME = "gedit-sort-lines"
WAIVED = OUTPUT_IS_THE_WORK
POOL = sorted({*NOUNS, *ADJECTIVES, *WORDS})


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.list']))}"
    reverse, unique = rng.random() < 0.5, rng.random() < 0.5
    words = rng.sample(POOL, rng.randint(5, 12))
    if unique:
        words += rng.sample(words, rng.randint(1, 3))
    rng.shuffle(words)
    order = "reverse alphabetical (Z to A)" if reverse else "alphabetical (A to Z)"
    repeats = " and remove the duplicate lines" if unique else ""
    return cb.Task(
        description=f"The file ~/{path} is open in gedit. Sort its lines in {order} order{repeats} with gedit's "
        "Tools > Sort, then save the file.",
        metadata={"path": path, "text": "\n".join(words) + "\n", "reverse": reverse, "unique": unique},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: Meta) -> str:
    lines = meta["text"].splitlines()
    return "\n".join(sorted(set(lines) if meta["unique"] else lines, reverse=meta["reverse"]))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_gedit(task, session, {meta["path"]: meta["text"]}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    path, want = task.metadata["path"], expected(task.metadata)
    actual = await output_text(session, after, path)
    # gedit's Sort ends the sorted text with a newline, and gedit adds its own on save: one empty last
    # line is the tool's, more is not.
    ok = actual in (want, want + "\n", want + "\n\n")
    if not ok:
        task.explain(f"{path}: {text_difference(actual, want)}")
    return [1.0 if ok and nothing_else_changed(task, before, after, expect=[path]) else 0.0]


async def _tick(session: cb.Session, box: str, wanted: bool) -> None:
    """The Sort dialog's ``box`` clicked until the tree shows it ``wanted``."""
    for _attempt in range(4):
        node = await wait_for(lambda: find_node(session, "check box", box), f"the box {box!r}")
        if ("checked" in node["states"]) == wanted:
            return
        await click_node(session, "check box", box)
        await act(session, Wait(0.3))
    raise cb.TaskError(f"the box {box!r} would not turn {'on' if wanted else 'off'}")


async def sort(session: cb.Session, meta: Meta, *, reverse: bool, save_it: bool = True) -> None:
    await from_menu(session, "Tools", "Sort…")
    await window(session, "Sort")
    await _tick(session, "Reverse order", reverse)
    await _tick(session, "Remove duplicates", meta["unique"])
    await click_node(session, "push button", "Sort")
    await no_window(session, "Sort")
    if save_it:
        await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await sort(session, task.metadata, reverse=task.metadata["reverse"])


@cb.wrong_way
async def reverse_flipped(task: cb.Task, session: cb.Session) -> None:
    """Sorted in the other order than the one asked."""
    await sort(session, task.metadata, reverse=not task.metadata["reverse"])


@cb.wrong_way
async def sorted_not_saved(task: cb.Task, session: cb.Session) -> None:
    """Sorted as asked on screen, never saved."""
    await sort(session, task.metadata, reverse=task.metadata["reverse"], save_it=False)
    await window(session, lambda title: title.startswith("*"))
