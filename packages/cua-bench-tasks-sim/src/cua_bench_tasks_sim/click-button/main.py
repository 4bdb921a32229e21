"""click-button: click the button with a given label among several scattered in a window.

The evaluator checks the whole end state: the named button pressed exactly once, no other button
pressed, and the window still open (the title bar's Close is a button too); and, as the instruction
says click, the desktop's record of a left press on that button.

Wrong ways: ``clicks_a_neighbouring_button`` (another label), ``double_clicks_it`` (the right
button pressed twice), ``oracle_then_clicks_another_button`` and ``presses_it_with_the_keyboard``
(Tab to it, Space). Chance is 1/k for k buttons.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.sim import TITLE_HEIGHT, Button
from cua_bench_tasks_sim._widgets_common import (
    WORDS,
    click,
    click_in,
    desktop,
    launch_form,
    node_in,
    remember,
    same_windows,
    score,
    splits,
    window_by_title,
)
from cua_core import KeyPress

FAMILY = "click-button"
TITLE = "Click the button"
CELL_W, CELL_H = 140, 44
LAYOUT = {"easy": (3, 3, 1), "medium": (6, 3, 3), "hard": (12, 4, 4)}  # buttons, columns, rows


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, columns, rows = LAYOUT[difficulty]
    labels = rng.sample(WORDS, count)
    cells = rng.sample(range(columns * rows), count)
    jitter = [[rng.randint(0, 12), rng.randint(0, 8)] for _ in labels]
    target = rng.choice(labels)
    return cb.Task(
        description=f'Click the "{target}" button.',
        metadata={"labels": labels, "target": target, "cells": cells, "jitter": jitter, "columns": columns},
        max_steps=5,
        chance=1 / count,
    )


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    columns = meta["columns"]
    widgets = [
        {"type": "button", "name": label, "action": "none",
         "x": 12 + CELL_W * (cell % columns) + dx, "y": TITLE_HEIGHT + 12 + CELL_H * (cell // columns) + dy}
        for label, cell, (dx, dy) in zip(meta["labels"], meta["cells"], meta["jitter"], strict=True)
    ]  # fmt: skip
    await launch_form(session, task, TITLE, widgets, width=CELL_W * columns + 24)
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    window = window_by_title(session, TITLE)
    if window is None or not same_windows(task, session):
        return score(False)
    clicks = {w.name: w.clicks for w in window.all_widgets() if isinstance(w, Button)}
    clicked = desktop(session).provenance.clicks_on(window.id, task.metadata["target"])
    return score(clicks == {name: int(name == task.metadata["target"]) for name in task.metadata["labels"]}
                 and bool(clicked))  # fmt: skip


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await click_in(session, "button", task.metadata["target"], within=("window", TITLE))


@cb.wrong_way
async def clicks_a_neighbouring_button(task: cb.Task, session: cb.Session) -> None:
    """The button whose label comes next in the window, not the named one."""
    labels = task.metadata["labels"]
    other = labels[(labels.index(task.metadata["target"]) + 1) % len(labels)]
    await click_in(session, "button", other, within=("window", TITLE))


@cb.wrong_way
async def double_clicks_it(task: cb.Task, session: cb.Session) -> None:
    """The named button, double-clicked: it acts twice."""
    window = await session.find(role="window", name=TITLE)
    await click(session, node_in(window, "button", task.metadata["target"]), clicks=2)


@cb.wrong_way
async def oracle_then_clicks_another_button(task: cb.Task, session: cb.Session) -> None:
    """The named button, then one more: another button's action runs too."""
    await solve(task, session)
    await clicks_a_neighbouring_button(task, session)


@cb.wrong_way
async def presses_it_with_the_keyboard(task: cb.Task, session: cb.Session) -> None:
    """The named button reached with Tab and pressed with Space: pressed once, but not clicked."""
    for _ in range(len(task.metadata["labels"]) + 1):
        window = await session.find(role="window", name=TITLE)
        if "focused" in node_in(window, "button", task.metadata["target"])["states"]:
            break
        await session.apply([KeyPress(("tab",))])
    await session.apply([KeyPress(("space",))])
