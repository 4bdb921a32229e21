"""contacts-favourite: in Contacts, make a person a favourite, or stop them being one.

Easy: six contacts, one person to add to (or remove from) the favourites, the phone at home. Medium:
fourteen, Contacts already open on someone else. Hard: thirty-two, two people to change (one added,
one removed, or both the same way), at least one below the list's first screen, Messages open in front.

The evaluator checks the whole state of the phone's apps: the contacts are setup's with only those
people's Favourite turned as asked and nothing else changed (no other person's box, no field, no search
left typed, no other app); no dialog or overlay left open. Chance: easy 0.01, medium 0.005 (Contacts,
the one row among up to fourteen, then the one box among the screen's handful of controls, by random
taps), hard 0.0002 (two such people, one off the first screen).

Wrong ways: ``toggles_the_neighbour`` (the person next in the list instead), ``oracle_then_the_neighbour``
(both) and ``adds_a_copy_instead`` (a new contact with the person's details and the box as asked, the
person left as they were).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import contacts, messages
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "contacts-favourite"
SHAPE = {"easy": 6, "medium": 14, "hard": 32}  # contacts on the phone
SCREEN = 23  # rows of the contact list on its first screen


def _ask(name: str, favourite: bool) -> str:
    return f"add {name} to your favourites" if favourite else f"remove {name} from your favourites"


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = contacts.sample(rng, SHAPE[difficulty])
    people = sorted(data["contacts"], key=contacts.sort_key)
    apps, state = ["contacts"], {"contacts": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "hard":
        chosen = [rng.choice(people[SCREEN:])]
        chosen.append(rng.choice([p for p in people if p is not chosen[0]]))
        apps, state = ["contacts", "messages"], {"contacts": data, "messages": messages.sample(rng, 5)}
        opened = ("messages", None)
    else:
        chosen = [rng.choice(people)]
    for person in chosen:  # whether each is asked in or out: sometimes the other way from the sample
        person["favourite"] = rng.random() < 0.5
    if difficulty == "medium":
        opened = ("contacts", rng.choice([p for p in people if p is not chosen[0]])["name"])
    changes = {p["name"]: not p["favourite"] for p in chosen}
    asks = [_ask(name, favourite) for name, favourite in changes.items()]
    what = " and ".join(asks)
    description = rng.choice([f"In Contacts, {what}. Change nothing else.",
                              f"Open Contacts and {what}; leave everything else as it is.",
                              f"Using the Favourite box in Contacts, {what}."])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened,
                      chance={"easy": 0.01, "medium": 0.005, "hard": 0.0002}[difficulty],
                      max_steps={"easy": 12, "medium": 14, "hard": 24}[difficulty], changes=changes)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    changes = task.metadata["changes"]

    def change(state: dict[str, Any]) -> None:
        for person in state["contacts"]["contacts"]:
            if person["name"] in changes:
                person["favourite"] = changes[person["name"]]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


def _neighbour(task: cb.Task) -> str:
    """The person after the first target in the list (before it, for the last), not a target itself."""
    names = [p["name"] for p in sorted(task.metadata["data"]["contacts"]["contacts"], key=contacts.sort_key)]
    changes = task.metadata["changes"]
    index = names.index(next(iter(changes)))
    around = names[index + 1 :] + names[:index][::-1]
    return str(next(n for n in around if n not in changes))


async def toggle(hand: Hand, name: str) -> None:
    await contacts.open_contact(hand, name)
    await hand.tap("checkbox", "Favourite")
    await hand.button("back")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    for name, favourite in task.metadata["changes"].items():
        await contacts.open_contact(hand, name)
        if await hand.value("checkbox", "Favourite") != favourite:
            await hand.tap("checkbox", "Favourite")
        await hand.button("back")


@cb.wrong_way
async def toggles_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await toggle(Hand(session), _neighbour(task))


@cb.wrong_way
async def oracle_then_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await toggles_the_neighbour(task, session)


@cb.wrong_way
async def adds_a_copy_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    for name, favourite in task.metadata["changes"].items():
        await contacts.open_contact(hand, name)
        phone, email = await hand.value("textbox", "Phone"), await hand.value("textbox", "Email")
        await hand.button("back")
        await contacts.save_new_contact(hand, name, phone, email, favourite)
