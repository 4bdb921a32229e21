"""choose-dropdown: pick an option in the named drop-down list (long lists scroll), then Submit.

The evaluator checks the whole end state: exactly one submission with the option chosen in the named
list and every other list as it was, and the window still holding that (nothing changed after Submit).

Wrong ways: ``picks_a_neighbouring_option`` (another option of the named list),
``oracle_then_changes_a_list`` (a list changed after Submit) and ``oracle_then_submits_again``
(Submit pressed once more: the same values sent twice). Chance is 1/k for the named list's k
options.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.tasksets.sim._widgets_common import (
    CATEGORIES,
    CITIES,
    click_in,
    disturb,
    launch_form,
    press,
    remember,
    score,
    select_option,
    splits,
    submitted_once,
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
                   max_steps=10, chance=1 / len(target["options"]))  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await launch_form(session, task, TITLE, [*task.metadata["boxes"], {"type": "button", "name": "Submit"}])
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return score(submitted_once(task, session, TITLE, {task.metadata["target"]: task.metadata["answer"]}))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await select_option(session, task.metadata["target"], task.metadata["answer"])
    await click_in(session, "button", "Submit", within=("window", TITLE))


@cb.wrong_way
async def picks_a_neighbouring_option(task: cb.Task, session: cb.Session) -> None:
    """The option next to the asked-for one in the named list, then Submit."""
    meta = task.metadata
    options = next(box["options"] for box in meta["boxes"] if box["name"] == meta["target"])
    index = options.index(meta["answer"])
    await select_option(session, meta["target"], options[index - 1 if index else 1])
    await press(session, TITLE, "Submit")


@cb.wrong_way
async def oracle_then_changes_a_list(task: cb.Task, session: cb.Session) -> None:
    """The option submitted, then another option picked in a list: the window no longer holds what was sent."""
    await solve(task, session)
    await disturb(session, TITLE)


@cb.wrong_way
async def oracle_then_submits_again(task: cb.Task, session: cb.Session) -> None:
    """The option submitted, then Submit pressed once more: the same values sent twice."""
    await solve(task, session)
    await press(session, TITLE, "Submit")
