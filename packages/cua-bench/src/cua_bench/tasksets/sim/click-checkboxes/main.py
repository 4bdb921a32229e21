"""click-checkboxes: tick exactly the boxes that match a rule ("every fruit"), then Submit.

The evaluator checks the whole end state: exactly one submission, in which each box is ticked iff it
matches, and the window still holds that (nothing changed after Submit, no window closed).

Wrong ways: ``ticks_every_box`` (the matches and the rest), ``oracle_then_toggles_a_box`` (a box
clicked after Submit) and ``oracle_then_submits_again`` (Submit pressed once more: the same values
sent twice). Chance is 1/2^n: one of the 2^n ways to tick n boxes.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.sim._widgets_common import (
    CATEGORIES,
    a,
    click,
    click_in,
    disturb,
    launch_form,
    node_in,
    press,
    remember,
    score,
    splits,
    submitted_once,
)

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


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    names, columns = meta["names"], meta["columns"]
    boxes = [{"type": "checkbox", "name": n, "checked": n in meta["checked"]} for n in names]
    rows = [{"type": "row", "items": boxes[i : i + columns]} for i in range(0, len(boxes), columns)]
    await launch_form(session, task, TITLE, [*rows, {"type": "button", "name": "Submit"}], width=150 * columns + 40)
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    matches = set(task.metadata["matches"])
    return score(submitted_once(task, session, TITLE, {n: n in matches for n in task.metadata["names"]}))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    matches = set(task.metadata["matches"])
    window = await session.find(role="window", name=TITLE)
    for name in task.metadata["names"]:
        box = node_in(window, "checkbox", name)
        if ("checked" in box["states"]) != (name in matches):
            await click(session, box)
    await click_in(session, "button", "Submit", within=("window", TITLE))


@cb.wrong_way
async def ticks_every_box(task: cb.Task, session: cb.Session) -> None:
    """Every box ticked, the matching ones and the others, then Submit."""
    window = await session.find(role="window", name=TITLE)
    for name in task.metadata["names"]:
        box = node_in(window, "checkbox", name)
        if "checked" not in box["states"]:
            await click(session, box)
    await press(session, TITLE, "Submit")


@cb.wrong_way
async def oracle_then_toggles_a_box(task: cb.Task, session: cb.Session) -> None:
    """The right boxes submitted, then one box clicked: the window no longer holds what was sent."""
    await solve(task, session)
    await disturb(session, TITLE)


@cb.wrong_way
async def oracle_then_submits_again(task: cb.Task, session: cb.Session) -> None:
    """The right boxes submitted, then Submit pressed once more: the same values sent twice."""
    await solve(task, session)
    await press(session, TITLE, "Submit")
