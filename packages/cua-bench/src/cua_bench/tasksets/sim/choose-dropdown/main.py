"""choose-dropdown: pick an option in the named drop-down list (long lists scroll), then Submit."""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.tasksets.sim._widgets_common import (
    CATEGORIES,
    CITIES,
    click_in,
    first_submission,
    launch_form,
    score,
    select_option,
    splits,
)

FAMILY = "choose-dropdown"
TITLE = "Preferences"
NAMES = {"fruit": "Fruit", "animal": "Pet", "colour": "Colour", "vehicle": "Transport", "country": "Country",
         "musical instrument": "Instrument", "tool": "Tool", "sport": "Sport"}  # fmt: skip
LONG = {"City": CITIES, "Year": [str(year) for year in range(1970, 2026)]}


def make(rng: random.Random, difficulty: str) -> cb.Task:
    boxes: list[dict[str, Any]] = []
    for category in rng.sample(sorted(NAMES), {"easy": 1, "medium": 2, "hard": 2}[difficulty]):
        options = rng.sample(CATEGORIES[category], rng.randint(4, 5) if difficulty == "easy" else 7)
        boxes.append({"type": "dropdown", "name": NAMES[category], "options": options})
    if difficulty == "hard":  # a list longer than the popup shows, so choosing may need scrolling
        name = rng.choice(sorted(LONG))
        count = rng.randint(14, 24)
        first = rng.randrange(len(LONG[name]) - count + 1)
        options = LONG[name][first : first + count] if name == "Year" else sorted(rng.sample(LONG[name], count))
        boxes.insert(rng.randint(0, len(boxes)), {"type": "dropdown", "name": name, "options": options})
    for box in boxes:
        box["value"] = None if difficulty == "easy" else rng.choice([None, *box["options"]])
    long = [box for box in boxes if box["name"] in LONG]
    target = long[0] if long and rng.random() < 0.7 else rng.choice(boxes)
    answer = rng.choice([o for o in target["options"] if o != target["value"]])
    description = f'Select "{answer}" in the "{target["name"]}" drop-down list, then press Submit.'
    return cb.Task(description=description, metadata={"boxes": boxes, "target": target["name"], "answer": answer},
                   max_steps=10)  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await launch_form(session, task, TITLE, [*task.metadata["boxes"], {"type": "button", "name": "Submit"}])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    want = {box["name"]: box["value"] for box in meta["boxes"]} | {meta["target"]: meta["answer"]}
    sent = first_submission(session, TITLE)
    return score(sent is not None and all(sent.get(name) == value for name, value in want.items()))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await select_option(session, task.metadata["target"], task.metadata["answer"])
    await click_in(session, "button", "Submit", within=("window", TITLE))
