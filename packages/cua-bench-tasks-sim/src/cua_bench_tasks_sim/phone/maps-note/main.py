"""maps-note: in Maps, set the note of a saved place to a given text.

Easy: six places, two saved (the place without a note yet), the phone at home. Medium: ten places, three
saved, Maps open on another saved place, Notes on the launcher too. Hard: twenty places, five saved, the
place's note already holding other text (to be replaced), Maps open on its Saved list, Shop and Notes on
the launcher too. The place is never the first of Saved.

The evaluator checks the whole state of the phone's apps: the place's note is the text exactly, and
nothing else changed (no other note, no place saved or unsaved), but for the search: it may stay as
setup left it or hold any text under which the place is listed; no dialog or overlay left open. Chance
0 (the note is typed).

Wrong ways: ``notes_the_neighbour`` (the text on the saved place listed next to it), ``note_near_miss``
(the text without its last character), ``oracle_then_notes_another`` (the right note, and the same text
on another saved place).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but
from cua_bench_tasks_sim._phone.words import sentence

FAMILY = "maps-note"
SHAPE = {"easy": (6, 2), "medium": (10, 3), "hard": (20, 5)}  # places, saved
TEMPLATES = [
    'In Maps, give your saved place "{name}" the note "{text}".',
    'In your saved places in Maps, set the note on "{name}" to "{text}".',
    'Using Maps, make the note of the saved place "{name}" read exactly "{text}".',
]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, saved = SHAPE[difficulty]
    kinds = sorted(maps.CATEGORIES)
    data = maps.atlas(rng, [rng.choice(kinds) for _ in range(count)], saved)
    entry = rng.choice(data["saved"][1:])  # never the first row of Saved
    entry["note"] = rng.choice(maps.NOTES) if difficulty == "hard" else ""
    text = sentence(rng)
    opened: tuple[str, str] | None = None
    if difficulty == "medium":
        opened = ("maps", rng.choice([e for e in data["saved"] if e is not entry])["place"])
    elif difficulty == "hard":
        opened = ("maps", "saved")
    apps = {"easy": ["maps"], "medium": ["maps", "notes"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"maps": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "shop" in apps:
        seeded["shop"] = shop.sample(rng, 6)
    description = rng.choice(TEMPLATES).format(name=entry["place"], text=text) + " Change nothing else."
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=0.0, max_steps=20,
                      place=entry["place"], text=text)  # fmt: skip


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
        entry = next(e for e in state["maps"]["saved"] if e["place"] == task.metadata["place"])
        entry["note"] = task.metadata["text"]
        if maps.search_allowed(state["maps"]["query"], query, place_of(task)):
            state["maps"]["query"] = query

    return score(settled(session) and unchanged_but(task, session, change))


async def write_note(hand: Hand, name: str, text: str) -> None:
    await maps.open_saved_place(hand, name)
    await hand.fill("Note", text)


def neighbour(task: cb.Task) -> str:
    saved = [entry["place"] for entry in task.metadata["data"]["maps"]["saved"]]
    return saved[(saved.index(task.metadata["place"]) + 1) % len(saved)]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await write_note(Hand(session), task.metadata["place"], task.metadata["text"])


@cb.wrong_way
async def notes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await write_note(Hand(session), neighbour(task), task.metadata["text"])


@cb.wrong_way
async def note_near_miss(task: cb.Task, session: cb.Session) -> None:
    await write_note(Hand(session), task.metadata["place"], task.metadata["text"][:-1])


@cb.wrong_way
async def oracle_then_notes_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await write_note(Hand(session), neighbour(task), task.metadata["text"])
