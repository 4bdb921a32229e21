"""scroll-list: scroll a long list until an item that starts out of view shows, and select it.

The evaluator checks the whole end state: the item selected in the list, and the window still open
with no other window opened.

Wrong ways: ``selects_a_neighbour`` (the item next to it) and ``oracle_then_presses_down`` (the item
selected, then the Down key moves the selection on). Chance is 1/k for the list's k items.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.nodes import find
from cua_bench.sim import ListView
from cua_bench_tasks_sim._widgets_common import (
    CITIES,
    FIRST_NAMES,
    click,
    launch_form,
    remember,
    same_windows,
    score,
    scroll_until,
    splits,
    window_by_title,
)
from cua_core import KeyPress

FAMILY = "scroll-list"
SURNAMES = ["Adams", "Baker", "Clark", "Diaz", "Ellis", "Flores", "Grant", "Hayes", "Iqbal", "Jensen", "Kowalski"]
LISTS = {"Cities": sorted(CITIES), "Contacts": sorted(f"{f} {s}" for f in FIRST_NAMES for s in SURNAMES)}
SIZE = {"easy": 16, "medium": 32, "hard": 64}
VISIBLE = 6  # rows a list shows at its default height


def make(rng: random.Random, difficulty: str) -> cb.Task:
    name = rng.choice(sorted(LISTS))
    items = sorted(rng.sample(LISTS[name], SIZE[difficulty]))
    if difficulty == "hard":
        rng.shuffle(items)  # unsorted: nothing tells which way to scroll
    from_end = difficulty == "hard" and rng.random() < 0.5  # starts scrolled to the bottom
    hidden = range(len(items) - VISIBLE - 1) if from_end else range(VISIBLE + 1, len(items))
    target = items[rng.choice(hidden)]
    description = f'In the {name} list, scroll to "{target}" and select it.'
    return cb.Task(description=description, metadata={"list": name, "items": items, "target": target,
                                                      "from_end": from_end}, max_steps=30,
                   chance=1 / len(items))  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    spec: dict[str, Any] = {"type": "list", "name": meta["list"], "items": meta["items"], "label": False}
    window = await launch_form(session, task, f"{meta['list']} - Directory", [spec], width=360)
    view = window.find(role="list", name=meta["list"])
    if meta["from_end"] and isinstance(view, ListView):
        view.scroll_to(len(meta["items"]) - 1)
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    window = window_by_title(session, f"{task.metadata['list']} - Directory")
    view = None if window is None else window.find(role="list", name=task.metadata["list"])
    return score(
        isinstance(view, ListView) and view.selected == task.metadata["target"] and same_windows(task, session)
    )


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _select(session, task.metadata["list"], task.metadata["target"])


async def _select(session: cb.Session, name: str, item: str) -> None:
    def the_list(tree: list[dict[str, Any]]) -> dict[str, Any]:
        return find(tree, role="list", name=name)

    await click(session, await scroll_until(session, the_list, "listitem", item))


@cb.wrong_way
async def selects_a_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The item just above the asked-for one (just below, for the first) selected instead."""
    items, target = task.metadata["items"], task.metadata["target"]
    index = items.index(target)
    await _select(session, task.metadata["list"], items[index - 1 if index else 1])


@cb.wrong_way
async def oracle_then_presses_down(task: cb.Task, session: cb.Session) -> None:
    """The item selected, then Down (or Up, at the end): the selection moves off it."""
    await solve(task, session)
    items = task.metadata["items"]
    last = items.index(task.metadata["target"]) == len(items) - 1
    await session.apply([KeyPress(("up" if last else "down",))])
