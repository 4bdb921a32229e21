"""contacts-add: in Contacts, add a new person with a given name and phone number (and more, by level).

Easy: six contacts, the phone at home; a name and a number. Medium: fourteen, Contacts already open on
someone; a name, a number and an email. Hard: thirty-two, Messages open in front; a name, a number, an
email, and the person marked a favourite.

The evaluator checks the whole state of the phone's apps: the contacts are setup's with one new person
after them (the next id), name, phone and email exact (email empty when none was given) and Favourite as
asked, and nothing else changed (no other person, no form or search left holding text, no other app); no dialog
or overlay left open. Chance 0 (the name and number are typed).

Wrong ways: ``near_miss_number`` (the number with its last digit off by one),
``overwrites_an_existing_contact`` (the first person in the list given the new details instead) and
``oracle_twice`` (the person added twice).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import contacts, messages
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "contacts-add"
SHAPE = {"easy": 6, "medium": 14, "hard": 32}  # contacts on the phone


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = contacts.sample(rng, SHAPE[difficulty])
    people = data["contacts"]
    apps, state = ["contacts"], {"contacts": data}
    opened: tuple[str, str | None] | None = None
    taken = {p["name"] for p in people}
    name = next(n for n in contacts.names(rng, len(taken) + 1) if n not in taken)
    number = contacts.new_number(rng, people)
    email, favourite = "", False
    if difficulty != "easy":
        email = contacts.email_for(rng, name)
    if difficulty == "medium":
        opened = ("contacts", rng.choice(people)["name"])
    if difficulty == "hard":
        favourite = True
        apps, state = ["contacts", "messages"], {"contacts": data, "messages": messages.sample(rng, 5)}
        opened = ("messages", None)
    details = [f'phone "{number}"'] + ([f'email "{email}"'] if email else [])
    lead = rng.choice([f'In Contacts, add a new contact named "{name}" with',
                       f'Save "{name}" as a new contact in Contacts, with',
                       f'Create a contact for "{name}":'])  # fmt: skip
    star = " Mark them as a favourite." if favourite else ""
    description = (f"{lead} {' and '.join(details)}.{star} Type everything exactly as written and leave every "
                   "other contact as it is.")  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 20, "medium": 26, "hard": 28}[difficulty], name=name, phone=number,
                      email=email, favourite=favourite)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        book = state["contacts"]
        book["contacts"].append({"id": book["next_id"], "name": meta["name"], "phone": meta["phone"],
                                 "email": meta["email"], "favourite": meta["favourite"]})  # fmt: skip
        book["next_id"] += 1

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def add(hand: Hand, meta: dict[str, Any], number: str) -> None:
    await contacts.to_list(hand)
    await hand.tap("button", "New contact")
    await hand.fill("Name", meta["name"])
    await hand.fill("Phone", number)
    if meta["email"]:
        await hand.fill("Email", meta["email"])
    if meta["favourite"]:
        await hand.tap("checkbox", "Favourite")
    await hand.tap("button", "Save")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await add(Hand(session), task.metadata, task.metadata["phone"])


@cb.wrong_way
async def near_miss_number(task: cb.Task, session: cb.Session) -> None:
    await add(Hand(session), task.metadata, contacts.near_miss(task.metadata["phone"]))


@cb.wrong_way
async def overwrites_an_existing_contact(task: cb.Task, session: cb.Session) -> None:
    meta, hand = task.metadata, Hand(session)
    await contacts.to_list(hand)
    first = (await hand.texts("listitem", within=contacts.LIST))[0]
    await hand.tap("listitem", first, within=contacts.LIST)
    await hand.fill("Name", meta["name"])
    await hand.fill("Phone", meta["phone"])
    await hand.fill("Email", meta["email"])
    if meta["favourite"] != await hand.value("checkbox", "Favourite"):
        await hand.tap("checkbox", "Favourite")
    await hand.button("back")


@cb.wrong_way
async def oracle_twice(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await solve(task, session)
