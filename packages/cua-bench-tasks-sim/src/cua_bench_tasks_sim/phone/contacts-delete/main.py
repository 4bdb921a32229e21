"""contacts-delete: in Contacts, delete a person.

Easy: six contacts, the person named, the phone at home. Medium: fourteen, the person named, Contacts
already open on someone else who shares their first name where one does. Hard: thirty-two, the person
given only by their phone number (search for it, or open people until it shows), Notes open in front.

The evaluator checks the whole state of the phone's apps: the contacts are setup's without that person
and nothing else changed (no other person, no search left typed, no other app); no dialog or overlay
left open. Chance 0.005: opening Contacts, the one row among up to twenty-three, the toolbar's Delete
contact and the dialog's Delete, by random taps (and in hard the row is not on the first screen).

Wrong ways: ``deletes_the_neighbour`` (the person next in the list instead), ``oracle_then_the_neighbour``
(both) and ``empties_it_instead`` (the person's name, phone and email cleared, the entry left).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import contacts, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "contacts-delete"
SHAPE = {"easy": 6, "medium": 14, "hard": 32}  # contacts on the phone
SCREEN = 23  # rows of the contact list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = contacts.sample(rng, SHAPE[difficulty])
    people = sorted(data["contacts"], key=contacts.sort_key)
    apps, state = ["contacts"], {"contacts": data}
    opened: tuple[str, str | None] | None = None
    target = rng.choice(people[SCREEN:] if difficulty == "hard" else people)
    name, which = target["name"], f"the contact {target['name']}"
    if difficulty == "medium":
        first = name.split(" ")[0]
        namesakes = [p for p in people if p is not target and p["name"].split(" ")[0] == first]
        opened = ("contacts", rng.choice(namesakes or [p for p in people if p is not target])["name"])
    if difficulty == "hard":
        which = f'the contact whose phone number is "{target["phone"]}"'
        apps, state = ["contacts", "notes"], {"contacts": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    description = rng.choice([f"In Contacts, delete {which}. Keep everyone else.",
                              f"Remove {which} from the phone's contacts; leave the other contacts alone.",
                              f"Delete {which} from Contacts."])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened,
                      chance={"easy": 0.005, "medium": 0.005, "hard": 0.001}[difficulty],
                      max_steps={"easy": 12, "medium": 16, "hard": 26}[difficulty], name=name)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    name = task.metadata["name"]

    def change(state: dict[str, Any]) -> None:
        state["contacts"]["contacts"] = [p for p in state["contacts"]["contacts"] if p["name"] != name]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def delete(hand: Hand, name: str) -> None:
    await contacts.open_contact(hand, name)
    await hand.tap("button", "Delete contact")
    await hand.tap("button", "Delete", within=("dialog", "Contacts"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), task.metadata["name"])


@cb.wrong_way
async def deletes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), contacts.neighbour(task))


@cb.wrong_way
async def oracle_then_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await deletes_the_neighbour(task, session)


@cb.wrong_way
async def empties_it_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await contacts.open_contact(hand, task.metadata["name"])
    for field in ("Name", "Phone", "Email"):
        await hand.tap("textbox", field)
        await hand.key("ctrl", "a")
        await hand.key("backspace")
    await hand.button("back")
