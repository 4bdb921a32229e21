"""login: enter a username and a password and press Sign in (a swap or a typo fails).

The evaluator checks the whole end state: exactly one submission holding the user name, the password
and (hard) "Remember me" as asked, and the window still holding that (nothing changed after Sign in).

Wrong ways: ``swaps_username_and_password``, ``oracle_then_edits_a_field`` (a field typed into after
Sign in) and ``oracle_then_signs_in_again`` (Sign in pressed once more: the same values sent twice).
Chance is 0: the credentials are typed.
"""

from __future__ import annotations

import random
import string
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._widgets_common import (
    FIRST_NAMES,
    click_in,
    disturb,
    launch_form,
    press,
    remember,
    score,
    splits,
    submitted_once,
    type_text,
)

FAMILY = "login"
SERVICES = ["Mailbox", "Intranet", "Payroll", "Wiki", "Tracker", "Cloud Drive", "Helpdesk", "Portal"]
SYMBOLS = "!#$%&*?@"


def make(rng: random.Random, difficulty: str) -> cb.Task:
    user = rng.choice(FIRST_NAMES).lower() + rng.choice(["", ".", "_"]) + str(rng.randint(1, 99))
    alphabet = string.ascii_letters + string.digits + (SYMBOLS if difficulty != "easy" else "")
    password = "".join(rng.choices(alphabet, k={"easy": 6, "medium": 8, "hard": 10}[difficulty]))
    fields: list[dict[str, Any]] = [
        {"type": "textfield", "name": "Username"},
        {"type": "textfield", "name": "Password"},
    ]
    want: dict[str, Any] = {"Username": user, "Password": password}
    extra = ""
    if difficulty == "hard":
        fields[0]["value"] = rng.choice(["guest", "admin", "user1", user[:-1]])  # a remembered user to replace
        remember = rng.random() < 0.5
        fields.append({"type": "checkbox", "name": "Remember me", "checked": not remember and rng.random() < 0.5})
        want["Remember me"] = remember
        extra = ' Tick "Remember me".' if remember else ' Make sure "Remember me" is not ticked.'
    if difficulty != "easy" and rng.random() < 0.5:
        fields[:2] = fields[1::-1]  # password above the user name
    description = f'Sign in to {rng.choice(SERVICES)} as "{user}" with the password "{password}".{extra}'
    return cb.Task(description=description, metadata={"fields": fields, "want": want}, max_steps=8, chance=0.0)


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    buttons = {"type": "row", "items": [{"type": "button", "name": "Sign in", "default": True},
                                        {"type": "button", "name": "Cancel", "action": "close"}]}  # fmt: skip
    await launch_form(session, task, "Sign in", [*task.metadata["fields"], buttons], width=400)
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return score(submitted_once(task, session, "Sign in", task.metadata["want"]))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _sign_in(session, task.metadata["want"])


async def _sign_in(session: cb.Session, want: dict[str, Any]) -> None:
    for name, value in want.items():
        if isinstance(value, str):
            field = await session.find(role="textbox", name=name)
            await type_text(session, "textbox", name, value, replace=bool(field["value"]))
        elif ("checked" in (await session.find(role="checkbox", name=name))["states"]) != value:
            await click_in(session, "checkbox", name)
    await click_in(session, "button", "Sign in")


@cb.wrong_way
async def swaps_username_and_password(task: cb.Task, session: cb.Session) -> None:
    """The password typed as the user name and the user name as the password, then Sign in."""
    want = task.metadata["want"]
    await _sign_in(session, {**want, "Username": want["Password"], "Password": want["Username"]})


@cb.wrong_way
async def oracle_then_edits_a_field(task: cb.Task, session: cb.Session) -> None:
    """Signed in as asked, then a letter typed into a field: the window no longer holds what was sent."""
    await solve(task, session)
    await disturb(session, "Sign in")


@cb.wrong_way
async def oracle_then_signs_in_again(task: cb.Task, session: cb.Session) -> None:
    """Signed in as asked, then Sign in pressed once more: the same values sent twice."""
    await solve(task, session)
    await press(session, "Sign in", "Sign in")
