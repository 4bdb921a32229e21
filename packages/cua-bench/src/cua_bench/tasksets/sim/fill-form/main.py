"""fill-form: fill text fields, an email, a dropdown, radio buttons and a check box, then Submit."""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.tasksets.sim._widgets_common import (
    CATEGORIES,
    FIRST_NAMES,
    click_in,
    first_submission,
    launch_form,
    score,
    select_option,
    splits,
    type_text,
)

FAMILY = "fill-form"
TITLES = ["Sign up", "Registration", "New account", "Contact details", "Order form", "Join the club"]
SURNAMES = ["Berg", "Costa", "Dubois", "Evans", "Fischer", "Garcia", "Ito", "Khan", "Lopez", "Moreau", "Novak"]
PLANS = [["Free", "Pro", "Team"], ["Basic", "Standard", "Premium"], ["Monthly", "Yearly"], ["Small", "Medium", "Large"]]
DOMAINS = ["example.com", "mail.test", "inbox.example", "corp.test"]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    first, last = rng.choice(FIRST_NAMES), rng.choice(SURNAMES)
    countries = rng.sample(CATEGORIES["country"], {"easy": 4, "medium": 6, "hard": 8}[difficulty])
    plans = rng.choice(PLANS)
    spec: list[dict[str, Any]] = [
        {"type": "textfield", "name": "Full name"},
        {"type": "textfield", "name": "Email"},
        {"type": "dropdown", "name": "Country", "options": countries},
        {"type": "radio", "name": "Plan", "options": plans},
        {"type": "checkbox", "name": "Subscribe to newsletter", "checked": difficulty == "hard" and rng.random() < .5},
    ]  # fmt: skip
    want: dict[str, Any] = {
        "Full name": f"{first} {last}",
        "Email": f"{first}.{last}{rng.randint(1, 99)}@{rng.choice(DOMAINS)}".lower(),
        "Country": rng.choice(countries),
        "Plan": rng.choice(plans),
        "Subscribe to newsletter": rng.random() < 0.5,
    }
    if difficulty != "easy":
        spec.insert(2, {"type": "textfield", "name": "Phone"})
        want["Phone"] = f"+{rng.randint(1, 99)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}"
    if difficulty == "hard":
        spec.insert(rng.randint(0, len(spec)), {"type": "textfield", "name": "Comments"})
        want["Comments"] = ""
    parts = [f'{name} "{value}"' for name, value in want.items() if isinstance(value, str) and value]
    tick = "tick" if want["Subscribe to newsletter"] else "untick"
    description = (f"Fill in the form with {', '.join(parts)}; {tick} \"Subscribe to newsletter\""
                   f"{'; leave Comments empty' if difficulty == 'hard' else ''}; then press Submit.")  # fmt: skip
    return cb.Task(description=description, metadata={"title": rng.choice(TITLES), "spec": spec, "want": want},
                   max_steps=16)  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    spec = [*task.metadata["spec"], {"type": "button", "name": "Submit"}]
    await launch_form(session, task, task.metadata["title"], spec, width=460)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    sent = first_submission(session, task.metadata["title"])
    return score(sent is not None and all(sent.get(k) == v for k, v in task.metadata["want"].items()))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    title = task.metadata["title"]
    for name, value in task.metadata["want"].items():
        if name == "Country":
            await select_option(session, name, value)
        elif name == "Plan":
            await click_in(session, "radio", value, within=("radiogroup", "Plan"))
        elif isinstance(value, bool):
            box = await session.find(role="checkbox", name=name)
            if ("checked" in box["states"]) != value:
                await click_in(session, "checkbox", name)
        elif value:
            await type_text(session, "textbox", name, value)
    await click_in(session, "button", "Submit", within=("window", title))
