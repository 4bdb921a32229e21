"""set-slider: set the named slider to a value (drag, click the track, or arrow keys), then Submit."""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.session import find, walk
from cua_bench.tasksets.sim._widgets_common import click_in, first_submission, launch_form, score, splits
from cua_core.actions import Click, KeyPress, Point

FAMILY = "set-slider"
TITLE = "Settings"
NAMES = ["Volume", "Brightness", "Contrast", "Speed", "Temperature", "Opacity", "Balance", "Zoom", "Font size"]
STEPS = {"easy": [1], "medium": [1, 2, 5], "hard": [2, 5, 10]}


def make(rng: random.Random, difficulty: str) -> cb.Task:
    sliders: list[dict[str, Any]] = []
    for name in rng.sample(NAMES, {"easy": 1, "medium": 2, "hard": 3}[difficulty]):
        step = rng.choice(STEPS[difficulty])
        low = rng.choice([0, 0, 10, -50]) if difficulty == "hard" else 0
        high = low + step * rng.choice([10, 20, 50]) if difficulty != "easy" else 100
        sliders.append({"type": "slider", "name": name, "min": low, "max": high, "step": step,
                        "value": low + step * rng.randint(0, (high - low) // step)})  # fmt: skip
    target = rng.choice(sliders)
    values = [v for v in range(target["min"], target["max"] + 1, target["step"]) if v != target["value"]]
    answer = rng.choice(values)
    description = f'Set the "{target["name"]}" slider to {answer}, then press Submit.'
    return cb.Task(description=description, metadata={"sliders": sliders, "target": target["name"], "answer": answer},
                   max_steps=12)  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    widgets = []
    for spec in task.metadata["sliders"]:  # each slider's range is shown under it, as a scale would be
        widgets += [spec, {"type": "label", "text": f"{spec['name']}: {spec['min']} to {spec['max']}"}]
    await launch_form(session, task, TITLE, [*widgets, {"type": "button", "name": "Submit"}], width=520)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    want = {s["name"]: s["value"] for s in meta["sliders"]} | {meta["target"]: meta["answer"]}
    sent = first_submission(session, TITLE)
    return score(sent is not None and all(sent.get(name) == value for name, value in want.items()))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    """Click the track where the value lies (the node's bounds are the track), then fix up with arrows."""
    name, answer = task.metadata["target"], task.metadata["answer"]
    tree = await session.accessibility_tree()
    scale = next(n["name"] for n in walk(tree) if n["role"] == "label" and n["name"].startswith(f"{name}: "))
    low, high = (int(part) for part in scale.split(": ")[1].split(" to "))
    left, top, right, bottom = find(tree, role="slider", name=name)["bounds"]
    await session.apply([Click(Point(left + (answer - low) / (high - low) * (right - left), (top + bottom) / 2))])
    for _ in range(20):
        current = (await session.find(role="slider", name=name))["value"]
        if current == answer:
            break
        await session.apply([KeyPress(("right" if current < answer else "left",))])
    await click_in(session, "button", "Submit", within=("window", TITLE))
