"""tab-focus: fill a form from the keyboard (Tab between fields, Space ticks, Enter submits).

The evaluator checks the submitted values; the oracle clicks the first field once and then uses
keys only, walking the fields in tab order (the order of the window's nodes).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.tasksets.sim._widgets_common import (
    CITIES,
    FIELD_NAMES,
    FIRST_NAMES,
    click,
    first_submission,
    launch_form,
    node_in,
    score,
    splits,
)
from cua_core.actions import Action, KeyPress, TypeText

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
    return cb.Task(description=description, metadata={"spec": spec, "want": want}, max_steps=20)


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    submit = {"type": "button", "name": "Submit", "default": True}
    await launch_form(session, task, TITLE, [*task.metadata["spec"], submit], width=440)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    sent = first_submission(session, TITLE)
    return score(sent is not None and all(sent.get(k) == v for k, v in task.metadata["want"].items()))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    want = task.metadata["want"]
    window = await session.find(role="window", name=TITLE)
    chain = [n for n in window["children"] if n["role"] in ("textbox", "checkbox")]
    await click(session, node_in(window, chain[0]["role"], chain[0]["name"]))
    keys: list[Action] = []
    for node in chain:
        if node["role"] == "textbox" and want[node["name"]]:
            keys.append(TypeText(want[node["name"]]))
        elif node["role"] == "checkbox" and want[node["name"]]:
            keys.append(KeyPress(("space",)))
        keys.append(KeyPress(("tab",)))
    await session.apply([*keys[:-1], KeyPress(("enter",))])
