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
from cua_bench_tasks_sim._forms import choice
from cua_bench_tasks_sim._widgets_common import CATEGORIES, CITIES, select_option, splits

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


FORM = choice(TITLE, "boxes", select_option)
setup, evaluate, solve = FORM.functions()
picks_a_neighbouring_option = FORM.picks_a_neighbour(
    "picks_a_neighbouring_option", "The option next to the asked-for one in the named list, then Submit."
)
oracle_then_changes_a_list = FORM.oracle_then_disturbs(
    "oracle_then_changes_a_list",
    "The option submitted, then another option picked in a list: the window no longer holds what was sent.",
)
oracle_then_submits_again = FORM.oracle_then_submits_again(
    "oracle_then_submits_again", "The option submitted, then Submit pressed once more: the same values sent twice."
)
