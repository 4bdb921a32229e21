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
from cua_bench_tasks_sim._forms import choice
from cua_bench_tasks_sim._widgets_common import CATEGORIES, a, click_in, splits

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


async def choose(session: cb.Session, group: str, option: str) -> None:
    await click_in(session, "radio", option, within=("radiogroup", group))


FORM = choice(TITLE, "groups", choose)
setup, evaluate, solve = FORM.functions()
picks_a_neighbouring_option = FORM.picks_a_neighbour(
    "picks_a_neighbouring_option", "The option next to the asked-for one in the named group, then Submit."
)
oracle_then_changes_a_group = FORM.oracle_then_disturbs(
    "oracle_then_changes_a_group",
    "The option submitted, then another option clicked: the window no longer holds what was sent.",
)
oracle_then_submits_again = FORM.oracle_then_submits_again(
    "oracle_then_submits_again", "The option submitted, then Submit pressed once more: the same values sent twice."
)
