"""maps-directions: in Maps, start a route to a place by a given travel mode (walking, cycling, ...).

Easy: six places, the phone at home. Medium: twelve places, Maps open on another place, Notes on the
launcher too. Hard: 26 places, a route to another place already running, Shop and Notes on the launcher
too, and the place is not named in the task: a Maps notification suggests it, and the agent is told to
follow that notification. The travel mode Maps shows is never the one asked for, the place is never
the list's first row, and it is not saved.

The evaluator checks the whole state of the phone's apps: Maps' route is to the place by the mode and its
travel mode is that mode, and nothing else changed, but for the search: it may stay as setup left it or
hold any text under which the place is listed; no dialog or overlay left open. Hard also checks that the
notification was opened (the platform records it). Chance about 0.002 (taps at random would have to
open Maps, the place among six to 26, Directions, the mode of four, then Start).

Wrong ways: ``keeps_the_travel_mode`` (the right place by the mode Maps showed), ``goes_to_the_neighbour``
(the right mode, to the place listed next to it), ``chooses_the_mode_but_never_starts``,
``oracle_then_saves_the_place`` (the route, and the place saved too).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "maps-directions"
SHAPE = {"easy": 6, "medium": 12, "hard": 26}  # places
DOING = {"Drive": ["driving", "car"], "Walk": ["walking", "on-foot"], "Bike": ["cycling", "bike"],
         "Transit": ["public transport", "transit"]}  # fmt: skip
TEMPLATES = [
    'In Maps, start {doing} directions to "{name}".',
    'Get {doing} directions to "{name}" in Maps and start the route.',
    'Using Maps, start a {doing} route to "{name}".',
]
NOTICES = ["A place for you", "Worth a visit nearby", "Popular near you", "You might like this"]
HIDDEN = 'Open the Maps notification "{notice}" and start {doing} directions to the place it suggests.'


def make(rng: random.Random, difficulty: str) -> cb.Task:
    kinds = sorted(maps.CATEGORIES)
    data = maps.atlas(rng, [rng.choice(kinds) for _ in range(SHAPE[difficulty])], rng.randint(1, 3))
    taken = {entry["place"] for entry in data["saved"]}
    first = maps.nearest_first(data["places"])[0]  # never the first row
    place = rng.choice([p for p in data["places"] if p["name"] not in taken and p is not first])
    mode = rng.choice([m for m in maps.MODES if m != data["mode"]])
    doing = rng.choice(DOING[mode])
    notifications = []
    notice = None
    if difficulty == "hard":
        elsewhere = rng.choice([p for p in data["places"] if p is not place])
        data["route"] = {"place": elsewhere["name"], "mode": data["mode"]}
        notice = rng.choice(NOTICES)
        text = f"{place['name']}, a {place['category'].lower()} {place['distance']} m away"
        notifications.append(("maps", notice, text, place["name"]))
        description = HIDDEN.format(notice=notice, doing=doing)
    else:
        description = rng.choice(TEMPLATES).format(doing=doing, name=place["name"])
    description += " Change nothing else."
    apps = {"easy": ["maps"], "medium": ["maps", "notes"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"maps": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "shop" in apps:
        seeded["shop"] = shop.sample(rng, 6)
    opened = (
        ("maps", rng.choice([p for p in data["places"] if p is not place])["name"]) if difficulty == "medium" else None
    )
    chance = {"easy": 0.002, "medium": 0.001, "hard": 0.0005}[difficulty]
    return phone_task(description, apps=apps, data=seeded, opened=opened, notifications=notifications,
                      chance=chance, max_steps=20, place=place["name"], mode=mode, notice=notice)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


def place_of(task: cb.Task, step: int = 0) -> dict[str, Any]:
    """The task's place, or the one ``step`` rows from it in the list of every place (wrapping round)."""
    ordered = maps.nearest_first(task.metadata["data"]["maps"]["places"])
    here = next(i for i, p in enumerate(ordered) if p["name"] == task.metadata["place"])
    return ordered[(here + step) % len(ordered)]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    query = phone(session).state().get("maps", {}).get("query", "")

    def change(state: dict[str, Any]) -> None:
        state["maps"]["mode"] = meta["mode"]
        state["maps"]["route"] = {"place": meta["place"], "mode": meta["mode"]}
        if maps.search_allowed(state["maps"]["query"], query, place_of(task)):
            state["maps"]["query"] = query

    followed = meta["notice"] is None or any(
        note.opened for note in phone(session).notifications if note.app == "maps" and note.title == meta["notice"]
    )
    return score(followed and settled(session) and unchanged_but(task, session, change))


async def directions(task: cb.Task, hand: Hand, place: dict[str, Any], mode: str | None, *,
                     start: bool = True) -> None:  # fmt: skip
    """The place opened (from the notification where there is one to follow, else by searching), then
    Directions, the mode (None: as it is) and Start."""
    notice = task.metadata["notice"]
    if notice is not None and place["name"] == task.metadata["place"]:
        await hand.open_shade()
        await hand.tap("button", notice, within=("window", "Notifications"))
    else:
        await maps.open_place(hand, place)
    await hand.tap("button", "Directions")
    if mode is not None:
        await hand.tap("radio", mode, within=("radiogroup", "Travel mode"))
    if start:
        await hand.tap("button", "Start")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await directions(task, Hand(session), place_of(task), task.metadata["mode"])


@cb.wrong_way
async def keeps_the_travel_mode(task: cb.Task, session: cb.Session) -> None:
    await directions(task, Hand(session), place_of(task), None)


@cb.wrong_way
async def goes_to_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await directions(task, Hand(session), place_of(task, 1), task.metadata["mode"])


@cb.wrong_way
async def chooses_the_mode_but_never_starts(task: cb.Task, session: cb.Session) -> None:
    await directions(task, Hand(session), place_of(task), task.metadata["mode"], start=False)


@cb.wrong_way
async def oracle_then_saves_the_place(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.button("back")  # from the route to the place
    await hand.tap("button", "Save")
