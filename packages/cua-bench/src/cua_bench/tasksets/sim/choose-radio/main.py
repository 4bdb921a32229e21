"""choose-radio: select the radio button that matches a description, then Submit.

Easy variants name the option; the others describe it ("the option that names an animal") and,
in hard ones, say which of several groups to answer in.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.tasksets.sim._widgets_common import (
    CATEGORIES,
    a,
    click_in,
    first_submission,
    launch_form,
    score,
    splits,
)

FAMILY = "choose-radio"
TITLE = "Quick survey"
GROUPS = ["Question 1", "Question 2", "Question 3", "Option set A", "Option set B", "Answer", "Pick one"]
SHAPE = {"easy": (1, 3), "medium": (1, 4), "hard": (3, 5)}  # groups, options per group


def _group(rng: random.Random, name: str, size: int, category: str) -> dict[str, Any]:
    """Options with exactly one member of ``category``."""
    others = [w for c, words in CATEGORIES.items() if c != category for w in words]
    options = [rng.choice(CATEGORIES[category]), *rng.sample(others, size - 1)]
    rng.shuffle(options)
    return {"type": "radio", "name": name, "options": options, "category": category}


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, size = SHAPE[difficulty]
    names = sorted(rng.sample(GROUPS[:3], count)) if count > 1 else [rng.choice(GROUPS[3:])]
    groups = [_group(rng, name, size, rng.choice(sorted(CATEGORIES))) for name in names]
    for group in groups:
        group["value"] = rng.choice([None, *group["options"]]) if difficulty == "hard" else None
    target = rng.choice(groups)
    answer = next(o for o in target["options"] if o in CATEGORIES[target["category"]])
    if answer == target["value"]:
        target["value"] = None  # the answer must never be the starting state
    if difficulty == "easy":
        description = f'Select "{answer}" and press Submit.'
    else:
        where = f' under "{target["name"]}"' if count > 1 else ""
        description = f"Select the option that names {a(target['category'])}{where}, then press Submit."
    spec = [{k: v for k, v in g.items() if k != "category"} for g in groups]
    return cb.Task(description=description, metadata={"groups": spec, "target": target["name"], "answer": answer},
                   max_steps=6)  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await launch_form(session, task, TITLE, [*task.metadata["groups"], {"type": "button", "name": "Submit"}])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    want = {g["name"]: g["value"] for g in meta["groups"]} | {meta["target"]: meta["answer"]}
    sent = first_submission(session, TITLE)
    return score(sent is not None and all(sent.get(name) == value for name, value in want.items()))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await click_in(session, "radio", task.metadata["answer"], within=("radiogroup", task.metadata["target"]))
    await click_in(session, "button", "Submit", within=("window", TITLE))
