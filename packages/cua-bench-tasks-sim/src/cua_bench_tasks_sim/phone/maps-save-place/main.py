"""maps-save-place: in Maps, save a place named in the task.

Easy: six places, one saved already, the phone at home. Medium: twelve places, two saved, Maps open on
another place, Notes on the launcher too. Hard: 26 places, three saved, the place farther than the 21
rows the list shows, the search left holding a category the place is not in (it lists other places,
not this one), Shop and Notes on the launcher too. The place is never the list's first row.

The evaluator checks the whole state of the phone's apps: the saved places are setup's with this one
after them (with no note), and nothing else changed, but for the search: it may stay as setup left it or
hold any text under which the place is listed (searching for it is fine; a search that would not find it
is not); no dialog or overlay left open. Chance about 0.003 (taps at random would have to open Maps and
the place, among six to 26, then tap Save).

Wrong ways: ``saves_the_neighbour`` (the place listed next to it), ``saves_it_with_a_note`` (saved, and
a note typed on it), ``oracle_then_unsaves_another`` (saved, and a place saved before unsaved).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "maps-save-place"
SHAPE = {"easy": (6, 1), "medium": (12, 2), "hard": (26, 3)}  # places, saved
ROWS = 21  # the rows the root's list shows
TEMPLATES = [
    'In Maps, save the place "{name}".',
    'Add "{name}" to your saved places in Maps.',
    'Using the Maps app, save "{name}" so it shows under Saved.',
    'Find "{name}" in Maps and save it.',
]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, saved = SHAPE[difficulty]
    kinds = sorted(maps.CATEGORIES)
    data = maps.atlas(rng, [rng.choice(kinds) for _ in range(count)], saved)
    taken = {entry["place"] for entry in data["saved"]}
    ordered = maps.nearest_first(data["places"])
    free = [p for p in ordered[1:] if p["name"] not in taken]  # never the first row
    if difficulty == "hard":
        place = rng.choice([p for p in ordered[ROWS:] if p["name"] not in taken])
        hiding = [c for c in kinds if c != place["category"] and any(p["category"] == c for p in ordered)]
        data["query"] = rng.choice(hiding)
    else:
        place = rng.choice(free)
    apps = {"easy": ["maps"], "medium": ["maps", "notes"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"maps": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "shop" in apps:
        seeded["shop"] = shop.sample(rng, 6)
    opened = ("maps", rng.choice([p for p in ordered if p is not place])["name"]) if difficulty == "medium" else None
    description = rng.choice(TEMPLATES).format(name=place["name"]) + " Change nothing else."
    chance = {"easy": 0.003, "medium": 0.002, "hard": 0.0005}[difficulty]
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=16,
                      place=place["name"])  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


def place_of(task: cb.Task, name: str | None = None) -> dict[str, Any]:
    wanted = name or task.metadata["place"]
    return next(p for p in task.metadata["data"]["maps"]["places"] if p["name"] == wanted)  # type: ignore[no-any-return]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    query = phone(session).state().get("maps", {}).get("query", "")

    def change(state: dict[str, Any]) -> None:
        state["maps"]["saved"].append({"place": task.metadata["place"], "note": ""})
        if maps.search_allowed(state["maps"]["query"], query, place_of(task)):
            state["maps"]["query"] = query

    return score(settled(session) and unchanged_but(task, session, change))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await maps.open_place(hand, place_of(task))
    await hand.tap("button", "Save")


@cb.wrong_way
async def saves_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    data = task.metadata["data"]["maps"]
    taken = {entry["place"] for entry in data["saved"]} | {task.metadata["place"]}
    ordered = maps.nearest_first(data["places"])
    here = ordered.index(place_of(task))
    neighbour = min((p for p in ordered if p["name"] not in taken), key=lambda p: abs(ordered.index(p) - here))
    hand = Hand(session)
    await maps.open_place(hand, neighbour)
    await hand.tap("button", "Save")


@cb.wrong_way
async def saves_it_with_a_note(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.tap("textbox", "Note")
    await hand.type("want to go")


@cb.wrong_way
async def oracle_then_unsaves_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await maps.open_saved_place(hand, task.metadata["data"]["maps"]["saved"][0]["place"])
    await hand.tap("button", "Unsave")
    await hand.tap("button", "Unsave", within=("dialog", "Maps"))
