"""maps-nearest: in Maps, save the nearest place of a category (the nearest pharmacy): the agent must
find the places of that category and compare their distances.

Easy: six places, two of the category, the phone at home. Medium: twelve places, three of the category,
Maps open on one of them that is not the nearest, Notes on the launcher too. Hard: 26 places, four of the
category, the search left holding another category, Shop and Notes on the launcher too. The nearest
place of all is never of the category, and the place to save is not saved yet.

The evaluator checks the whole state of the phone's apps: the saved places are setup's with the nearest
place of the category after them (with no note), and nothing else changed, but for the search: it may
stay as setup left it or hold any text under which that place is listed; no dialog or overlay left
open. Chance about 0.002 (taps at random would have to open Maps and that place among six to 26, then
tap Save).

Wrong ways: ``saves_the_second_nearest`` (of the category), ``saves_the_nearest_place`` (the first row,
of another category), ``oracle_then_saves_the_second_nearest`` (both saved).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "maps-nearest"
SHAPE = {"easy": (6, 2), "medium": (12, 3), "hard": (26, 4)}  # places, of the category
TEMPLATES = [
    "In Maps, save the nearest {noun}.",
    "Which {noun} is closest? Save it in Maps.",
    "Using Maps, find the {noun} nearest to you and add it to your saved places.",
]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, mine = SHAPE[difficulty]
    kinds = sorted(maps.CATEGORIES)
    category = rng.choice(kinds)
    categories = [category] * mine + [rng.choice([k for k in kinds if k != category]) for _ in range(count - mine)]
    rng.shuffle(categories)
    data = maps.atlas(rng, categories, 0)
    ordered = maps.nearest_first(data["places"])
    ours = [p for p in ordered if p["category"] == category]
    if ordered[0]["category"] == category:  # the nearest of all is another category's: swap distances
        other = next(p for p in ordered if p["category"] != category)
        ordered[0]["distance"], other["distance"] = other["distance"], ordered[0]["distance"]
        ordered = maps.nearest_first(data["places"])
        ours = [p for p in ordered if p["category"] == category]
    target = ours[0]
    others = [p for p in data["places"] if p is not target]
    spare = [p for p in others if p is not ours[1] and p is not ordered[0]]  # the wrong ways save those two
    for place in rng.sample(spare, {"easy": 1, "medium": 2, "hard": 3}[difficulty]):
        data["saved"].append({"place": place["name"], "note": rng.choice(["", *maps.NOTES])})
    if difficulty == "hard":
        data["query"] = rng.choice(sorted({p["category"] for p in others} - {category}))
    apps = {"easy": ["maps"], "medium": ["maps", "notes"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"maps": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "shop" in apps:
        seeded["shop"] = shop.sample(rng, 6)
    opened = ("maps", rng.choice(ours[1:])["name"]) if difficulty == "medium" else None
    description = rng.choice(TEMPLATES).format(noun=category.lower()) + " Change nothing else."
    chance = {"easy": 0.003, "medium": 0.002, "hard": 0.0005}[difficulty]
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=16,
                      category=category, place=target["name"])  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


def ranked(task: cb.Task, category: str | None = None) -> list[dict[str, Any]]:
    """The places (of ``category``, or every one when "" ; default: the task's), nearest first."""
    wanted = task.metadata["category"] if category is None else category
    places = task.metadata["data"]["maps"]["places"]
    return maps.nearest_first([p for p in places if not wanted or p["category"] == wanted])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    query = phone(session).state().get("maps", {}).get("query", "")

    def change(state: dict[str, Any]) -> None:
        state["maps"]["saved"].append({"place": task.metadata["place"], "note": ""})
        if maps.search_allowed(state["maps"]["query"], query, ranked(task)[0]):
            state["maps"]["query"] = query

    return score(settled(session) and unchanged_but(task, session, change))


async def save(hand: Hand, place: dict[str, Any], search: str) -> None:
    await maps.open_place(hand, place, search)
    await hand.tap("button", "Save")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await save(Hand(session), ranked(task)[0], task.metadata["category"])


@cb.wrong_way
async def saves_the_second_nearest(task: cb.Task, session: cb.Session) -> None:
    await save(Hand(session), ranked(task)[1], task.metadata["category"])


@cb.wrong_way
async def saves_the_nearest_place(task: cb.Task, session: cb.Session) -> None:
    await save(Hand(session), ranked(task, "")[0], "")


@cb.wrong_way
async def oracle_then_saves_the_second_nearest(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await save(Hand(session), ranked(task)[1], task.metadata["category"])
