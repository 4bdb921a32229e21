"""maps-unsave: in Maps, remove a place from the saved places (its note goes with it).

Easy: six places, two saved, the phone at home. Medium: ten places, four saved, Maps open on its Saved
list, Notes on the launcher too. Hard: twenty places, six saved, Maps open on another saved place, the
search left holding a category the place is not in, Shop and Notes on the launcher too. Every saved
place has a note; the place is never the first of Saved.

The evaluator checks the whole state of the phone's apps: the saved places are setup's without this one
(the others in their order, with their notes), and nothing else changed, but for the search: it may
stay as setup left it or hold any text under which the place is listed; no dialog or overlay left open.
Chance about 0.002 (taps at random would have to open Maps, Saved and the place, then Unsave and
confirm it).

Wrong ways: ``unsaves_the_neighbour`` (the saved place listed next to it), ``clears_the_note_instead``
(the place stays saved, its note emptied), ``unsaves_every_place``.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "maps-unsave"
SHAPE = {"easy": (6, 2), "medium": (10, 4), "hard": (20, 6)}  # places, saved
TEMPLATES = [
    'In Maps, remove "{name}" from your saved places.',
    'Unsave "{name}" in Maps.',
    'Using the Maps app, take "{name}" off the Saved list.',
    'I no longer need "{name}" saved in Maps: unsave it.',
]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, saved = SHAPE[difficulty]
    kinds = sorted(maps.CATEGORIES)
    data = maps.atlas(rng, [rng.choice(kinds) for _ in range(count)], saved, notes=True)
    entry = rng.choice(data["saved"][1:])  # never the first row of Saved
    place = next(p for p in data["places"] if p["name"] == entry["place"])
    opened: tuple[str, str] | None = None
    if difficulty == "medium":
        opened = ("maps", "saved")
    elif difficulty == "hard":
        opened = ("maps", rng.choice([e for e in data["saved"] if e is not entry])["place"])
        hiding = [c for c in kinds if c != place["category"] and any(p["category"] == c for p in data["places"])]
        data["query"] = rng.choice(hiding)
    apps = {"easy": ["maps"], "medium": ["maps", "notes"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"maps": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "shop" in apps:
        seeded["shop"] = shop.sample(rng, 6)
    description = rng.choice(TEMPLATES).format(name=place["name"]) + " Keep the other saved places as they are."
    chance = {"easy": 0.002, "medium": 0.002, "hard": 0.0005}[difficulty]
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=16,
                      place=place["name"])  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


def place_of(task: cb.Task) -> dict[str, Any]:
    places = task.metadata["data"]["maps"]["places"]
    return next(p for p in places if p["name"] == task.metadata["place"])  # type: ignore[no-any-return]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    query = phone(session).state().get("maps", {}).get("query", "")

    def change(state: dict[str, Any]) -> None:
        saved = state["maps"]["saved"]
        saved[:] = [entry for entry in saved if entry["place"] != task.metadata["place"]]
        if maps.search_allowed(state["maps"]["query"], query, place_of(task)):
            state["maps"]["query"] = query

    return score(settled(session) and unchanged_but(task, session, change))


async def unsave(hand: Hand, name: str) -> None:
    await maps.open_saved_place(hand, name)
    await hand.tap("button", "Unsave")
    await hand.tap("button", "Unsave", within=("dialog", "Maps"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await unsave(Hand(session), task.metadata["place"])


@cb.wrong_way
async def unsaves_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    saved = [entry["place"] for entry in task.metadata["data"]["maps"]["saved"]]
    await unsave(Hand(session), saved[(saved.index(task.metadata["place"]) + 1) % len(saved)])


@cb.wrong_way
async def clears_the_note_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await maps.open_saved_place(hand, task.metadata["place"])
    await hand.tap("textbox", "Note")
    await hand.key("ctrl", "a")
    await hand.key("backspace")


@cb.wrong_way
async def unsaves_every_place(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    for entry in task.metadata["data"]["maps"]["saved"]:
        await unsave(hand, entry["place"])
