"""enter-text: type a given text into the named field (replacing what is there) and Submit.

The evaluator checks the whole end state: exactly one submission, with the text in the named field
and every other field as it was, and the window still holding that (nothing changed after Submit).

Wrong ways: ``drops_the_last_character`` (a typo), ``oracle_then_edits_a_field`` (a field typed into
after Submit) and ``oracle_then_submits_again`` (Submit pressed once more: the same values sent
twice). Chance is 0: the text is typed.
"""

from __future__ import annotations

import random
import string
from typing import Any

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_sim._forms import Form
from cua_bench_tasks_sim._widgets_common import CATEGORIES, FIELD_NAMES, FIRST_NAMES, press, splits, type_text

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
    return cb.Task(description=description, metadata=meta, max_steps=6, chance=0.0)


train_variants, test_variants = splits(FAMILY, make)


def inputs(meta: Meta) -> list[dict[str, Any]]:
    return [{"type": "textfield", "name": f, "value": meta["values"][f]} for f in meta["fields"]]


def asked(meta: Meta) -> dict[str, Any]:
    return {meta["target"]: meta["text"]}


async def fill(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, "textbox", meta["target"], meta["text"], replace=bool(meta["values"][meta["target"]]))


FORM = Form(TITLE, inputs, asked, fill)
setup, evaluate, solve = FORM.functions()


@cb.wrong_way
async def drops_the_last_character(task: cb.Task, session: cb.Session) -> None:
    """The text typed without its last character, then Submit."""
    meta = task.metadata
    field = await session.find(role="textbox", name=meta["target"])
    await type_text(session, "textbox", meta["target"], meta["text"][:-1], replace=bool(field["value"]))
    await press(session, TITLE, "Submit")


oracle_then_edits_a_field = FORM.oracle_then_disturbs(
    "oracle_then_edits_a_field",
    "The text submitted, then a letter typed into a field: the window no longer holds what was sent.",
)
oracle_then_submits_again = FORM.oracle_then_submits_again(
    "oracle_then_submits_again", "The text submitted, then Submit pressed once more: the same values sent twice."
)
