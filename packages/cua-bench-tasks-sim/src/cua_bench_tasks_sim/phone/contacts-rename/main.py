"""contacts-rename: in Contacts, change a person's name (a new surname, or the name they go by).

Easy: six contacts, the phone at home. Medium: fourteen, Contacts already open on someone else. Hard:
thirty-two, the person below the list's first screen (scroll, or search), Notes open in front, and their
email changes with the name.

The evaluator checks the whole state of the phone's apps: the contacts are setup's with only that
person's name (and, when hard, email) now exactly the new one, still the same entry (its id, phone and
place in the store: deleting and adding them again makes another), and nothing else changed (no other
person, no search left typed, no other app); no dialog or overlay left open. Chance 0 (the name is
typed).

Wrong ways: ``renames_the_neighbour`` (the person next in the list instead), ``near_miss_name`` (the new
name all in lower case) and ``adds_a_new_contact_instead`` (a new entry with the new name and the
person's number, the old one left).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import contacts, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_bench_tasks_sim._phone.words import FIRST_NAMES, LAST_NAMES

FAMILY = "contacts-rename"
SHAPE = {"easy": 6, "medium": 14, "hard": 32}  # contacts on the phone
SCREEN = 23  # rows of the contact list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = contacts.sample(rng, SHAPE[difficulty])
    people = sorted(data["contacts"], key=contacts.sort_key)
    apps, state = ["contacts"], {"contacts": data}
    opened: tuple[str, str | None] | None = None
    target = rng.choice(people[SCREEN:] if difficulty == "hard" else people)
    name = target["name"]
    first, last = name.split(" ", 1)
    taken = {p["name"] for p in people}
    surname = rng.random() < 0.5
    options = [f"{first} {other}" for other in LAST_NAMES] if surname else [f"{other} {last}" for other in FIRST_NAMES]
    new = rng.choice([n for n in options if n not in taken])
    why = f"{first} has a new surname" if surname else "their first name was saved wrong"
    email = ""
    if difficulty == "medium":
        opened = ("contacts", rng.choice([p for p in people if p is not target])["name"])
    if difficulty == "hard":
        email = contacts.email_for(rng, new)  # another name: another address
        apps, state = ["contacts", "notes"], {"contacts": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    ask = rng.choice([f'{why[0].upper()}{why[1:]}: in Contacts, rename "{name}" to "{new}".',
                      f'In Contacts, change the name of the contact "{name}" to "{new}" ({why}).',
                      f'Rename the contact "{name}" to "{new}"; {why}.'])  # fmt: skip
    also = f' Their email is now "{email}": change it too.' if email else ""
    description = f"{ask}{also} Keep the same contact (do not add a new one) and change nothing else."
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 14, "medium": 16, "hard": 26}[difficulty], name=name, new=new,
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
                person["name"] = meta["new"]
                if meta["email"]:
                    person["email"] = meta["email"]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def rename(hand: Hand, name: str, new: str, email: str) -> None:
    await contacts.open_contact(hand, name)
    await hand.fill("Name", new)
    if email:
        await hand.fill("Email", email)
    await hand.button("back")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await rename(Hand(session), meta["name"], meta["new"], meta["email"])


@cb.wrong_way
async def renames_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await rename(Hand(session), contacts.neighbour(task), meta["new"], meta["email"])


@cb.wrong_way
async def near_miss_name(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await rename(Hand(session), meta["name"], meta["new"].lower(), meta["email"])


@cb.wrong_way
async def adds_a_new_contact_instead(task: cb.Task, session: cb.Session) -> None:
    meta, hand = task.metadata, Hand(session)
    await contacts.open_contact(hand, meta["name"])
    number, email = await hand.value("textbox", "Phone"), meta["email"] or await hand.value("textbox", "Email")
    favourite = await hand.value("checkbox", "Favourite")
    await hand.button("back")
    await contacts.save_new_contact(hand, meta["new"], number, email, favourite)
