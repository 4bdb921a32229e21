"""contacts-edit-number: in Contacts, give a person a new phone number (and, when hard, a new email).

Easy: six contacts, the phone at home. Medium: fourteen, Contacts already open on another person. Hard:
thirty-two, the person below the list's first screen (scroll, or search), Messages open in front, and
their email changes too.

The evaluator checks the whole state of the phone's apps: the contacts are setup's with only that
person's phone (and, when hard, email) now exactly the new one, nothing else changed (no other person,
no favourite, no search left typed, no other app); no dialog or overlay left open. Chance 0 (the number
is typed).

Wrong ways: ``edits_the_neighbour`` (the person next in the list gets the number), ``near_miss_number``
(the number with its last digit off by one), ``oracle_then_toggles_favourite`` (the right edit, and
the person's Favourite box ticked or unticked on the way out).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import contacts, messages
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "contacts-edit-number"
SHAPE = {"easy": 6, "medium": 14, "hard": 32}  # contacts on the phone
SCREEN = 23  # rows of the contact list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = contacts.sample(rng, SHAPE[difficulty])
    people = sorted(data["contacts"], key=contacts.sort_key)
    apps, state = ["contacts"], {"contacts": data}
    opened: tuple[str, str | None] | None = None
    target = rng.choice(people[SCREEN:] if difficulty == "hard" else people)
    number = contacts.new_number(rng, people)
    email = ""
    name = target["name"]
    if difficulty == "medium":
        opened = ("contacts", rng.choice([p for p in people if p is not target])["name"])
    if difficulty == "hard":
        apps, state = ["contacts", "messages"], {"contacts": data, "messages": messages.sample(rng, 5)}
        opened = ("messages", None)
        first, last = name.lower().split(" ", 1)
        email = f"{first}{rng.choice(['.', '_', ''])}{last}{rng.randrange(10, 100)}@{rng.choice(contacts.DOMAINS)}"
    ask = rng.choice([f'In Contacts, change {name}\'s phone number to "{number}".',
                      f'{name} has a new phone number: "{number}". Update their contact.',
                      f'Set the phone number of the contact {name} to "{number}".'])  # fmt: skip
    also = f' Their email changes too, to "{email}".' if email else ""
    description = f"{ask}{also} Type {'them' if email else 'it'} exactly as written; change nothing else."
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 16, "medium": 18, "hard": 26}[difficulty], name=name, phone=number,
                      email=email)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        for person in state["contacts"]["contacts"]:
            if person["name"] == meta["name"]:
                person["phone"] = meta["phone"]
                if meta["email"]:
                    person["email"] = meta["email"]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def edit(hand: Hand, name: str, number: str, email: str) -> None:
    await contacts.open_contact(hand, name)
    await hand.fill("Phone", number)
    if email:
        await hand.fill("Email", email)
    await hand.button("back")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await edit(Hand(session), meta["name"], meta["phone"], meta["email"])


@cb.wrong_way
async def edits_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await edit(Hand(session), contacts.neighbour(task), meta["phone"], meta["email"])


@cb.wrong_way
async def near_miss_number(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await edit(Hand(session), meta["name"], contacts.near_miss(meta["phone"]), meta["email"])


@cb.wrong_way
async def oracle_then_toggles_favourite(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await contacts.open_contact(hand, task.metadata["name"])
    await hand.tap("checkbox", "Favourite")
    await hand.button("back")
