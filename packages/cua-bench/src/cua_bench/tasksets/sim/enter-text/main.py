"""enter-text: type a given text into the named field (replacing what is there) and Submit."""

from __future__ import annotations

import random
import string

import cua_bench as cb
from cua_bench.tasksets.sim._widgets_common import (
    CATEGORIES,
    FIELD_NAMES,
    FIRST_NAMES,
    click_in,
    first_submission,
    launch_form,
    score,
    splits,
    type_text,
)

FAMILY = "enter-text"
TITLE = "Enter text"
FIELDS = {"easy": 1, "medium": 3, "hard": 4}


def _text(rng: random.Random) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return rng.choice(FIRST_NAMES) + " " + rng.choice(CATEGORIES[rng.choice(sorted(CATEGORIES))])
    if kind == 1:
        return "".join(rng.choices(string.ascii_uppercase + string.digits, k=rng.randint(5, 9)))
    return rng.choice(FIRST_NAMES).lower() + str(rng.randint(10, 999))


def make(rng: random.Random, difficulty: str) -> cb.Task:
    fields = rng.sample(FIELD_NAMES, FIELDS[difficulty])
    target, text = rng.choice(fields), _text(rng)
    values = {f: (_text(rng) if difficulty == "hard" and rng.random() < 0.6 else "") for f in fields}
    if difficulty == "hard":
        values[target] = _text(rng)
    if values[target]:
        description = f'Replace the text in the "{target}" field with "{text}", then press Submit.'
    else:
        description = f'Type "{text}" into the "{target}" field, then press Submit.'
    meta = {"fields": fields, "values": values, "target": target, "text": text}
    return cb.Task(description=description, metadata=meta, max_steps=6)


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    values = task.metadata["values"]
    widgets = [{"type": "textfield", "name": f, "value": values[f]} for f in task.metadata["fields"]]
    await launch_form(session, task, TITLE, [*widgets, {"type": "button", "name": "Submit"}])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    want = {**meta["values"], meta["target"]: meta["text"]}
    sent = first_submission(session, TITLE)
    return score(sent is not None and all(sent.get(f) == v for f, v in want.items()))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, "textbox", meta["target"], meta["text"], replace=bool(meta["values"][meta["target"]]))
    await click_in(session, "button", "Submit", within=("window", TITLE))
