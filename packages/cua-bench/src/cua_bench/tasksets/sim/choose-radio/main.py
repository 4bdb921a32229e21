"""choose-radio: select the radio button that matches a description, then Submit.

Easy variants name the option; the others describe it ("the option that names an animal") and,
in hard ones, say which of several groups to answer in.

The evaluator checks the whole end state: exactly one submission with the option chosen in the named
group and every other group as it was, and the window still holding that (nothing changed after Submit).

Wrong ways: ``picks_a_neighbouring_option`` (another option of the named group),
``oracle_then_changes_a_group`` (an option clicked after Submit) and ``oracle_then_submits_again``
(Submit pressed once more: the same values sent twice). Chance is 1/k for the named group's k
options.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.tasksets.sim._widgets_common import (
    CATEGORIES,
    a,
    click_in,
    disturb,
    launch_form,
    press,
    remember,
    score,
    splits,
    submitted_once,
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
                   max_steps=6, chance=1 / size)  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await launch_form(session, task, TITLE, [*task.metadata["groups"], {"type": "button", "name": "Submit"}])
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return score(submitted_once(task, session, TITLE, {task.metadata["target"]: task.metadata["answer"]}))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await click_in(session, "radio", task.metadata["answer"], within=("radiogroup", task.metadata["target"]))
    await click_in(session, "button", "Submit", within=("window", TITLE))


@cb.wrong_way
async def picks_a_neighbouring_option(task: cb.Task, session: cb.Session) -> None:
    """The option next to the asked-for one in the named group, then Submit."""
    meta = task.metadata
    options = next(group["options"] for group in meta["groups"] if group["name"] == meta["target"])
    index = options.index(meta["answer"])
    await click_in(session, "radio", options[index - 1 if index else 1], within=("radiogroup", meta["target"]))
    await press(session, TITLE, "Submit")


@cb.wrong_way
async def oracle_then_changes_a_group(task: cb.Task, session: cb.Session) -> None:
    """The option submitted, then another option clicked: the window no longer holds what was sent."""
    await solve(task, session)
    await disturb(session, TITLE)


@cb.wrong_way
async def oracle_then_submits_again(task: cb.Task, session: cb.Session) -> None:
    """The option submitted, then Submit pressed once more: the same values sent twice."""
    await solve(task, session)
    await press(session, TITLE, "Submit")
