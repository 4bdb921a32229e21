"""fill-form: fill text fields, an email, a dropdown, radio buttons and a check box, then Submit.

The evaluator checks the whole end state: exactly one submission holding every field as asked (the
fields to leave empty empty), and the window still holding that (nothing changed after Submit).

Wrong ways: ``picks_another_country`` (every field right but the drop-down),
``oracle_then_edits_a_field`` (a field typed into after Submit) and ``oracle_then_submits_again``
(Submit pressed once more: the same values sent twice). Chance is 0: names and addresses are typed.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._widgets_common import (
    CATEGORIES,
    FIRST_NAMES,
    click_in,
    disturb,
    launch_form,
    press,
    remember,
    score,
    select_option,
    splits,
    submitted_once,
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
                   max_steps=16, chance=0.0)  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    spec = [*task.metadata["spec"], {"type": "button", "name": "Submit"}]
    await launch_form(session, task, task.metadata["title"], spec, width=460)
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return score(submitted_once(task, session, task.metadata["title"], task.metadata["want"]))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _fill(task, session, task.metadata["want"])


async def _fill(task: cb.Task, session: cb.Session, want: dict[str, Any]) -> None:
    title = task.metadata["title"]
    for name, value in want.items():
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


@cb.wrong_way
async def picks_another_country(task: cb.Task, session: cb.Session) -> None:
    """Every field as asked but Country, where a neighbouring option is picked, then Submit."""
    want = task.metadata["want"]
    options = next(s["options"] for s in task.metadata["spec"] if s["name"] == "Country")
    await _fill(task, session, {**want, "Country": next(o for o in options if o != want["Country"])})


@cb.wrong_way
async def oracle_then_edits_a_field(task: cb.Task, session: cb.Session) -> None:
    """The form submitted as asked, then a letter typed into a field: the window no longer holds what was sent."""
    await solve(task, session)
    await disturb(session, task.metadata["title"])


@cb.wrong_way
async def oracle_then_submits_again(task: cb.Task, session: cb.Session) -> None:
    """The form submitted as asked, then Submit pressed once more: the same values sent twice."""
    await solve(task, session)
    await press(session, task.metadata["title"], "Submit")
