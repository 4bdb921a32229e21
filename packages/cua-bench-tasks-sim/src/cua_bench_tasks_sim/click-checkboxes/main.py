"""click-checkboxes: tick exactly the boxes that match a rule ("every fruit"), then Submit.

The evaluator checks the whole end state: exactly one submission, in which each box is ticked iff it
matches, and the window still holds that (nothing changed after Submit, no window closed).

Wrong ways: ``ticks_every_box`` (the matches and the rest), ``oracle_then_toggles_a_box`` (a box
clicked after Submit) and ``oracle_then_submits_again`` (Submit pressed once more: the same values
sent twice). Chance is 1/2^n: one of the 2^n ways to tick n boxes.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_sim._forms import Form
from cua_bench_tasks_sim._widgets_common import CATEGORIES, a, click, node_in, press, splits

FAMILY = "click-checkboxes"
TITLE = "Choose items"
SIZES = {"easy": (4, 1), "medium": (6, 2), "hard": (9, 3)}  # boxes, columns


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, columns = SIZES[difficulty]
    category, *others = rng.sample(sorted(CATEGORIES), 3 if difficulty == "hard" else 2)
    matches = rng.sample(CATEGORIES[category], rng.randint(1, min(4, count - 1)))
    pool = [word for other in others for word in CATEGORIES[other] if word not in matches]
    names = matches + rng.sample(pool, count - len(matches))
    rng.shuffle(names)
    checked = [] if difficulty == "easy" else [n for n in names if rng.random() < 0.3]
    if set(checked) == set(matches):
        checked.remove(rng.choice(checked))  # the answer must never be the starting state
    description = (f"Tick every box that names {a(category)} and no other box, then press Submit."
                   if difficulty == "easy" else f"Make sure exactly the boxes that name {a(category)} are ticked "
                   "(untick any others), then press Submit.")  # fmt: skip
    meta = {"names": names, "checked": checked, "matches": matches, "columns": columns}
    return cb.Task(description=description, metadata=meta, max_steps=count + 4, chance=1 / 2**count)


train_variants, test_variants = splits(FAMILY, make)


def inputs(meta: Meta) -> list[dict[str, Any]]:
    names, columns = meta["names"], meta["columns"]
    boxes = [{"type": "checkbox", "name": n, "checked": n in meta["checked"]} for n in names]
    return [{"type": "row", "items": boxes[i : i + columns]} for i in range(0, len(boxes), columns)]


def asked(meta: Meta) -> dict[str, Any]:
    matches = set(meta["matches"])
    return {n: n in matches for n in meta["names"]}


async def fill(task: cb.Task, session: cb.Session) -> None:
    matches = set(task.metadata["matches"])
    window = await session.find(role="window", name=TITLE)
    for name in task.metadata["names"]:
        box = node_in(window, "checkbox", name)
        if ("checked" in box["states"]) != (name in matches):
            await click(session, box)


FORM = Form(TITLE, inputs, asked, fill, width=lambda meta: 150 * meta["columns"] + 40)
setup, evaluate, solve = FORM.functions()


@cb.wrong_way
async def ticks_every_box(task: cb.Task, session: cb.Session) -> None:
    """Every box ticked, the matching ones and the others, then Submit."""
    window = await session.find(role="window", name=TITLE)
    for name in task.metadata["names"]:
        box = node_in(window, "checkbox", name)
        if "checked" not in box["states"]:
            await click(session, box)
    await press(session, TITLE, "Submit")


oracle_then_toggles_a_box = FORM.oracle_then_disturbs(
    "oracle_then_toggles_a_box",
    "The right boxes submitted, then one box clicked: the window no longer holds what was sent.",
)
oracle_then_submits_again = FORM.oracle_then_submits_again(
    "oracle_then_submits_again",
    "The right boxes submitted, then Submit pressed once more: the same values sent twice.",
)
