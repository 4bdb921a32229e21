"""set-slider: set the named slider to a value (drag, click the track, or arrow keys), then Submit.

The evaluator checks the whole end state: exactly one submission with the named slider at the value
and every other slider as it was, and the window still holding that (nothing changed after Submit).

Wrong ways: ``one_step_off`` (one arrow key too many before Submit), ``oracle_then_moves_a_slider``
(a slider moved after Submit) and ``oracle_then_submits_again`` (Submit pressed once more: the same
values sent twice). Chance is 1/k for the k values the named slider can take.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench.nodes import find, walk
from cua_bench_tasks_sim._forms import Form, target_answer
from cua_bench_tasks_sim._widgets_common import press, splits
from cua_core import Click, KeyPress, Point

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
                   max_steps=12, chance=1 / (len(values) + 1))  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


def inputs(meta: Meta) -> list[dict[str, Any]]:
    widgets: list[dict[str, Any]] = []
    for spec in meta["sliders"]:  # each slider's range is shown under it, as a scale would be
        widgets += [spec, {"type": "label", "text": f"{spec['name']}: {spec['min']} to {spec['max']}"}]
    return widgets


async def _slide(task: cb.Task, session: cb.Session) -> None:
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


FORM = Form(TITLE, inputs, target_answer, _slide, width=520)
setup, evaluate, solve = FORM.functions()


@cb.wrong_way
async def one_step_off(task: cb.Task, session: cb.Session) -> None:
    """The slider set to the value, then one arrow key more (away from the end it may be at), then Submit."""
    await _slide(task, session)
    spec = next(s for s in task.metadata["sliders"] if s["name"] == task.metadata["target"])
    await session.apply([KeyPress(("left" if task.metadata["answer"] == spec["max"] else "right",))])
    await press(session, TITLE, "Submit")


oracle_then_moves_a_slider = FORM.oracle_then_disturbs(
    "oracle_then_moves_a_slider",
    "The value submitted, then a slider moved: the window no longer holds what was sent.",
)
oracle_then_submits_again = FORM.oracle_then_submits_again(
    "oracle_then_submits_again", "The value submitted, then Submit pressed once more: the same values sent twice."
)
