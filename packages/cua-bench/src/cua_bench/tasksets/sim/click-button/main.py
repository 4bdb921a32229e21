"""click-button: click the button with a given label among several scattered in a window."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.sim import TITLE_HEIGHT, Button
from cua_bench.tasksets.sim._widgets_common import WORDS, click_in, launch_form, score, splits, window_by_title

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


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    window = window_by_title(session, TITLE)
    if window is None:
        return score(False)
    clicks = {w.name: w.clicks for w in window.all_widgets() if isinstance(w, Button)}
    target = task.metadata["target"]
    return score(clicks.get(target, 0) >= 1 and all(n == 0 for name, n in clicks.items() if name != target))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await click_in(session, "button", task.metadata["target"], within=("window", TITLE))
