"""clock-add-city: in Clock's world clock, add a named city (World clock, then Add city, then the city).

Easy: a city in the first screenful of the Add city list, Clock the only app, the phone at home.
Medium: any city, Notes and Settings on the launcher too, Clock already open on an alarm. Hard: two
cities, at least one of them below the first screenful of the list (a swipe to reach it), the other
apps there.

The evaluator checks the whole state of the phone's apps: the world clock's cities are setup's with
the asked ones after them (hard: in either order), the alarms and the other apps as they were; no
dialog or overlay left open. Chance: easy 0.002 (World among the root's controls, then +, then the
right row of about forty), medium 0.001, hard 0.00001 (twice, a swipe among it).

Wrong ways: ``adds_the_neighbour`` (the city listed next to the asked one, instead),
``oracle_then_removes_a_city`` (added, and a city that was there removed) and
``oracle_then_adds_another`` (added, and one more city too).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "clock-add-city"
SCREENFUL = 24  # rows of the Add city list in view before a swipe
CHANCE = {"easy": 0.002, "medium": 0.001, "hard": 0.00001}
PHRASES = (
    "In Clock, add {cities} to the world clock.",
    "Open Clock and put {cities} on the World clock.",
    "Add {cities} to the Clock app's world clock.",
)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data: dict[str, Any] = {"clock": clock.sample(rng, {"easy": 3, "medium": 5, "hard": 8}[difficulty])}
    left = [city for city in sorted(clock.ZONES) if city not in data["clock"]["cities"]]
    if difficulty == "easy":
        cities = [rng.choice(left[:SCREENFUL])]
    elif difficulty == "medium":
        cities = [rng.choice(left)]
    else:
        far = rng.choice(left[SCREENFUL + 1 :])
        cities = rng.sample([far, rng.choice([c for c in left if c != far])], 2)
    apps = ["clock"]
    opened = None
    if difficulty != "easy":
        data["notes"] = notes.sample(rng, 3)
        data["settings"] = settings.sample(rng, 4)
        apps = rng.sample(["clock", "notes", "settings"], 3)
        if difficulty == "medium":
            opened = ("clock", rng.choice(data["clock"]["alarms"])["time"])
    description = rng.choice(PHRASES).format(cities=" and ".join(cities))
    return phone_task(description + " Change nothing else.", apps=apps, data=data, opened=opened,
                      chance=CHANCE[difficulty], max_steps=8 * len(cities) + 8, cities=cities)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    asked = task.metadata["cities"]
    orders = [asked, asked[::-1]] if len(asked) == 2 else [asked]
    return score(
        settled(session)
        and any(unchanged_but(task, session, lambda s, o=order: s["clock"]["cities"].extend(o)) for order in orders)
    )


async def to_world(hand: Hand) -> None:
    """Clock in front on its world clock."""
    await clock.to_alarms(hand)
    await hand.tap("button", "World clock")


async def add(hand: Hand, city: str) -> None:
    """From the world clock: Add city, the list scrolled to ``city``, a tap on it."""
    await hand.tap("button", "Add city")
    await hand.scroll_to("listitem", city, within=("list", "Cities"))
    await hand.tap("listitem", city, within=("list", "Cities"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_world(hand)
    for city in task.metadata["cities"]:
        await add(hand, city)


@cb.wrong_way
async def adds_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_world(hand)
    city = task.metadata["cities"][0]
    await hand.tap("button", "Add city")
    await hand.scroll_to("listitem", city, within=("list", "Cities"))
    rows = await hand.texts("listitem", within=("list", "Cities"))
    at = rows.index(city)
    await hand.tap("listitem", rows[at + 1 if at + 1 < len(rows) else at - 1], within=("list", "Cities"))


@cb.wrong_way
async def oracle_then_removes_a_city(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    first = (await hand.texts("listitem", within=("list", "World clock")))[0]
    await hand.tap("listitem", first, within=("list", "World clock"))
    await hand.tap("button", "Remove city")
    await hand.tap("button", "Remove", within=("dialog", "Clock"))


@cb.wrong_way
async def oracle_then_adds_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.tap("button", "Add city")
    first = (await hand.texts("listitem", within=("list", "Cities")))[0]
    await hand.tap("listitem", first, within=("list", "Cities"))
