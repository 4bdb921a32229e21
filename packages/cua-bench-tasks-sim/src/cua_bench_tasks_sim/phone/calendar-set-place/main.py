"""calendar-set-place: in Calendar, set where an event takes place.

Easy: five events, the phone at home, the event has no place yet. Medium: twelve events, Calendar
already open on another event, the event's old place to be replaced. Hard: thirty events, the event
below the list's first screen (scroll), Notes on the launcher too, and the place given only as "the same
place as" another event (open that one to read it).

The evaluator checks the whole state of the phone's apps: the events are setup's with only that event's
place now exactly the new one (its title, date and time as they were, nothing else changed: no other
event, no draft, no other app); no dialog or overlay left open. Chance 0 (the place is typed).

Wrong ways: ``sets_the_neighbours_place`` (the event on the next row gets the place),
``place_missing_its_last_letter`` (a near miss) and ``types_it_into_the_title`` (the place typed over
the event's title instead).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "calendar-set-place"
SHAPE = {"easy": 5, "medium": 12, "hard": 30}  # events in the calendar
SCREEN = 24  # rows of the list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = calendar.sample(rng, SHAPE[difficulty])
    events = data["events"]
    ordered = calendar.in_order(events)
    target = rng.choice(ordered[SCREEN:] if difficulty == "hard" else ordered)
    if difficulty == "easy":
        target["place"] = ""
    elif not target["place"]:
        target["place"] = rng.choice(calendar.PLACES)
    place = rng.choice([p for p in calendar.PLACES if p != target["place"]])
    apps, state = ["calendar"], {"calendar": data}
    opened: tuple[str, str | None] | None = None
    where = f'"{place}"'
    if difficulty == "medium":
        opened = ("calendar", calendar.row(rng.choice([e for e in events if e is not target])))
    if difficulty == "hard":
        source = rng.choice([e for e in ordered[:SCREEN] if e is not target])
        source["place"] = place
        where = f'the same place as the "{source["title"]}" event'
        apps, state = ["calendar", "notes"], {"calendar": data, "notes": notes.sample(rng, 3)}
    title = target["title"]
    description = rng.choice([
        f'In Calendar, set the place of the "{title}" event to {where}.',
        f'The "{title}" event in Calendar takes place at {where}: put that in its Place.',
        f'Make the Calendar event "{title}" happen at {where} (its Place field).',
    ]) + " Change nothing else."  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 14, "medium": 16, "hard": 28}[difficulty], index=events.index(target),
                      target=calendar.row(target), place=place)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        events = state["calendar"]["events"]
        events[meta["index"]]["place"] = meta["place"]
        events[:] = calendar.in_order(events)

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def set_field(hand: Hand, row: str, field: str, text: str) -> None:
    """The event on ``row`` opened from the list, its ``field`` given ``text``, then back."""
    await calendar.open_row(hand, row)
    await hand.fill(field, text)
    await hand.button("back")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await set_field(Hand(session), task.metadata["target"], "Place", task.metadata["place"])


@cb.wrong_way
async def sets_the_neighbours_place(task: cb.Task, session: cb.Session) -> None:
    events = calendar.in_order(task.metadata["data"]["calendar"]["events"])
    rows = [calendar.row(e) for e in events]
    place = rows.index(task.metadata["target"])
    after = [e for e in events[place + 1 :] + events[:place] if e["place"] != task.metadata["place"]]
    await set_field(Hand(session), calendar.row(after[0]), "Place", task.metadata["place"])


@cb.wrong_way
async def place_missing_its_last_letter(task: cb.Task, session: cb.Session) -> None:
    await set_field(Hand(session), task.metadata["target"], "Place", task.metadata["place"][:-1])


@cb.wrong_way
async def types_it_into_the_title(task: cb.Task, session: cb.Session) -> None:
    await set_field(Hand(session), task.metadata["target"], "Title", task.metadata["place"])
