"""drag-to-target: drag the named chip onto the named drop area (hard: out of another area).

The evaluator checks the whole end state: the named chip in the named area, every other chip where
it started (loose or in its area), and the window still open with no other window opened. "Drag"
holds by construction: chips take no keys, so only a drag moves one.

Wrong ways: ``drops_it_in_another_area`` and ``oracle_then_moves_another_chip`` (a second chip
dragged into an area it was not in). Chance is 1/(chips x areas): one drag of some chip to some area.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.nodes import center
from cua_bench.sim import TITLE_HEIGHT, Draggable, DropTarget
from cua_bench_tasks_sim._widgets_common import (
    CATEGORIES,
    launch_form,
    remember,
    same_windows,
    score,
    splits,
    window_by_title,
)
from cua_core import Drag

FAMILY = "drag-to-target"
TITLE = "Sort the items"
BOXES = ["Basket", "Archive", "Inbox", "Trash", "Keep", "Later", "Shelf", "Crate", "Box A", "Box B"]
SHAPE = {"easy": (2, 2), "medium": (4, 3), "hard": (6, 4)}  # chips, drop areas
CELL_W, CHIP_ROW, AREA_H, WIDTH = 130, 36, 130, 560


def make(rng: random.Random, difficulty: str) -> cb.Task:
    chips, areas = SHAPE[difficulty]
    names = rng.sample([w for words in CATEGORIES.values() for w in words], chips)
    boxes = rng.sample(BOXES, areas)
    start: dict[str, str | None] = dict.fromkeys(names)
    for name in names if difficulty == "hard" else []:  # some chips start inside areas, two at most in each
        room = [b for b in boxes if list(start.values()).count(b) < 2]
        start[name] = rng.choice(room) if rng.random() < 0.4 else None
    chip, box = rng.choice(names), rng.choice(boxes)
    if start[chip] == box:
        start[chip] = rng.choice([None, *[b for b in boxes if b != box]])
    where = f' (it is now in "{start[chip]}")' if start[chip] else ""
    description = f'Drag "{chip}"{where} into the "{box}" area.'
    meta = {
        "names": names,
        "boxes": boxes,
        "start": start,
        "chip": chip,
        "box": box,
        "cells": rng.sample(range(8), chips),
    }
    return cb.Task(description=description, metadata=meta, max_steps=5, chance=1 / (chips * areas))


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    loose = [n for n in meta["names"] if meta["start"][n] is None]
    widgets: list[dict[str, Any]] = [
        {"type": "draggable", "name": n, "x": 12 + CELL_W * (c % 4), "y": TITLE_HEIGHT + 12 + CHIP_ROW * (c // 4)}
        for n, c in zip(meta["names"], meta["cells"], strict=True)
    ]
    width = (WIDTH - 24 - 8 * (len(meta["boxes"]) - 1)) // len(meta["boxes"])
    top = TITLE_HEIGHT + 12 + 2 * CHIP_ROW + 12
    widgets += [{"type": "droptarget", "name": b, "x": 12 + i * (width + 8), "y": top, "width": width,
                 "height": AREA_H} for i, b in enumerate(meta["boxes"])]  # fmt: skip
    window = await launch_form(session, task, TITLE, widgets, width=WIDTH)
    for chip in [w for w in window.all_widgets() if isinstance(w, Draggable) and w.name not in loose]:
        area = window.find(role="droptarget", name=meta["start"][chip.name])
        if isinstance(area, DropTarget):
            area.accept(chip)  # chips that start inside an area
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    window = window_by_title(session, TITLE)
    if window is None or not same_windows(task, session):
        return score(False)
    want = {**meta["start"], meta["chip"]: meta["box"]}
    areas = {w.name: w.items for w in window.all_widgets() if isinstance(w, DropTarget)}
    placed = {n: next((b for b, items in areas.items() if n in items), None) for n in meta["names"]}
    return score(placed == want)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _drag(session, task.metadata["chip"], task.metadata["box"])


async def _drag(session: cb.Session, chip: str, box: str) -> None:
    start = await session.find(role="draggable", name=chip)
    await session.apply([Drag(center(start), center(await session.find(role="droptarget", name=box)))])


@cb.wrong_way
async def drops_it_in_another_area(task: cb.Task, session: cb.Session) -> None:
    """The named chip dragged into another area than the named one (not the one it starts in)."""
    meta = task.metadata
    await _drag(
        session, meta["chip"], next(b for b in meta["boxes"] if b not in (meta["box"], meta["start"][meta["chip"]]))
    )


@cb.wrong_way
async def oracle_then_moves_another_chip(task: cb.Task, session: cb.Session) -> None:
    """The named chip where asked, then another chip dragged into an area it was not in."""
    meta = task.metadata
    await solve(task, session)
    other = next(n for n in meta["names"] if n != meta["chip"])
    await _drag(session, other, next(b for b in meta["boxes"] if b != meta["start"][other]))
