"""tab-focus: fill a form from the keyboard (Tab between fields, Space ticks, Enter submits).

Setup focuses the first field, so the task needs no pointer at all. The evaluator checks the method
and the whole end state: no pointer action in the episode's history (``task.history``), exactly one
submission holding every field and box as asked, and nothing changed after it. The oracle uses keys
only, walking the fields in tab order (the order of the window's nodes).

Wrong ways: ``clicks_each_field`` (the tester's case: the mouse to each field, typing, the mouse on
Submit), ``clicks_the_first_field`` (one click, then the oracle's keys), ``oracle_then_types_on``
(a key pressed after Enter changes the last field) and ``oracle_then_submits_again`` (Enter once
more: the same values sent twice). Chance is 0: the values are typed.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._widgets_common import (
    CITIES,
    FIELD_NAMES,
    FIRST_NAMES,
    by_keyboard_only,
    click,
    click_in,
    desktop,
    launch_form,
    node_in,
    remember,
    score,
    splits,
    submitted_once,
)
from cua_core import Action, KeyPress, TypeText

FAMILY = "tab-focus"
TITLE = "Keyboard only"
BOXES = ["Newsletter", "Accept terms", "Urgent", "Send a copy", "Public profile"]
SHAPE = {"easy": (2, 0, 0), "medium": (4, 1, 1), "hard": (5, 2, 2)}  # fields, fields left empty, check boxes


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, blank, boxes = SHAPE[difficulty]
    names = rng.sample(FIELD_NAMES, count)
    spec: list[dict[str, Any]] = [{"type": "textfield", "name": n} for n in names]
    for box in rng.sample(BOXES, boxes):
        spec.insert(rng.randint(1, len(spec)), {"type": "checkbox", "name": box})
    fill = rng.sample(names, count - blank)
    want: dict[str, Any] = {n: rng.choice(CITIES + FIRST_NAMES) if n in fill else "" for n in names}
    ticks = [s["name"] for s in spec if s["type"] == "checkbox" and rng.random() < 0.6]
    want |= {s["name"]: s["name"] in ticks for s in spec if s["type"] == "checkbox"}
    parts = [f'type "{want[n]}" in {n}' for n in names if n in fill] + [f'tick "{b}"' for b in ticks]
    rng.shuffle(parts)
    description = (
        "Using only the keyboard (Tab moves to the next field, Space ticks a box, Enter submits), "
        f"{', '.join(parts)}; leave everything else empty or unticked, then press Enter."
    )
    return cb.Task(description=description, metadata={"spec": spec, "want": want}, max_steps=20, chance=0.0)


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    submit = {"type": "button", "name": "Submit", "default": True}
    window = await launch_form(session, task, TITLE, [*task.metadata["spec"], submit], width=440)
    # The keyboard starts in the first field, so no click is needed to begin (whatever the sim's default).
    desktop(session).raise_window(window)
    window.set_focus(next(w for w in window.all_widgets() if w.can_focus()))
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return score(by_keyboard_only(task) and submitted_once(task, session, TITLE, task.metadata["want"]))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await session.apply(await _keys(task, session))


async def _keys(task: cb.Task, session: cb.Session) -> list[Action]:
    """Type or tick each field in tab order, Tab to the next, and Enter at the last."""
    want = task.metadata["want"]
    window = await session.find(role="window", name=TITLE)
    keys: list[Action] = []
    for node in _chain(window):
        if node["role"] == "textbox" and want[node["name"]]:
            keys.append(TypeText(want[node["name"]]))
        elif node["role"] == "checkbox" and want[node["name"]]:
            keys.append(KeyPress(("space",)))
        keys.append(KeyPress(("tab",)))
    return [*keys[:-1], KeyPress(("enter",))]


def _chain(window: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in window["children"] if n["role"] in ("textbox", "checkbox")]


@cb.wrong_way
async def clicks_each_field(task: cb.Task, session: cb.Session) -> None:
    """The right values, put in with the mouse: click each field or box, type, click Submit."""
    want = task.metadata["want"]
    for node in _chain(await session.find(role="window", name=TITLE)):
        if node["role"] == "textbox" and want[node["name"]]:
            await click(session, node)
            await session.apply([TypeText(want[node["name"]])])
        elif node["role"] == "checkbox" and want[node["name"]]:
            await click(session, node)
    await click_in(session, "button", "Submit", within=("window", TITLE))


@cb.wrong_way
async def clicks_the_first_field(task: cb.Task, session: cb.Session) -> None:
    """One click into the first field (as the old oracle did), then the oracle's keys."""
    window = await session.find(role="window", name=TITLE)
    first = _chain(window)[0]
    await click(session, node_in(window, first["role"], first["name"]))
    await solve(task, session)


@cb.wrong_way
async def oracle_then_types_on(task: cb.Task, session: cb.Session) -> None:
    """The oracle, then Space and a letter: the last field (typed into, or ticked) is not what was sent."""
    await solve(task, session)
    await session.apply([KeyPress(("space",)), TypeText("x")])


@cb.wrong_way
async def oracle_then_submits_again(task: cb.Task, session: cb.Session) -> None:
    """The oracle, then Enter once more: the same values sent twice."""
    await solve(task, session)
    await session.apply([KeyPress(("enter",))])
