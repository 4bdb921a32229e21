"""calendar-add-event: in Calendar, add an event with a given title, date, time (and place).

Easy: four events, the phone at home, no place. Medium: ten events, Calendar already open on one of
them, and a place. Hard: sixteen events, Notes and To-do on the launcher too with Notes open, a place,
and the day given only as "the same day as" another event (open it, or read its row, to learn the date).

The evaluator checks the whole state of the phone's apps: the events are setup's plus the new one (in
its place by date, as the app keeps them), its title, date, time and place exact (place "" when none is
asked), nothing else changed (no other event, no New event form left holding a draft, no other app); no
dialog or overlay left open.
Chance 0 (the title, date and time are typed).

Wrong ways: ``saves_it_an_hour_late`` (the time one hour off), ``edits_the_first_event`` (the event on
the first row given the new title, date, time and place instead of a new one) and ``oracle_twice`` (the
event added twice).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, notes, todo
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "calendar-add-event"
SHAPE = {"easy": 4, "medium": 10, "hard": 16}  # events in the calendar


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = calendar.sample(rng, SHAPE[difficulty])
    events = data["events"]
    month = events[0]["date"][:8]
    title = rng.choice([t for t in calendar.titles() if t not in {e["title"] for e in events}])
    date = f"{month}{rng.randint(1, 28):02d}"
    time = calendar.quarter_hour(rng)
    place = "" if difficulty == "easy" else rng.choice(calendar.PLACES)
    apps, state = ["calendar"], {"calendar": data}
    opened: tuple[str, str | None] | None = None
    day = f"on {date}"
    if difficulty == "medium":
        opened = ("calendar", calendar.row(rng.choice(events)))
    if difficulty == "hard":
        same = rng.choice(events)
        date, day = same["date"], f'on the same day as the "{same["title"]}" event'
        apps = ["calendar", "notes", "todo"]
        state = {"calendar": data, "notes": notes.sample(rng, 4), "todo": todo.sample(rng, 3)}
        opened = ("notes", None)
    where = f' at the place "{place}"' if place else " with no place"
    description = rng.choice([
        f'In Calendar, add an event "{title}" {day} at {time}{where}.',
        f'Create a new Calendar event titled "{title}", {day}, starting {time},{where}.',
        f'Put "{title}" in the calendar {day} at {time}{where}.',
    ]) + " Dates are YYYY-MM-DD and times HH:MM (24-hour) in Calendar. Change no other event."  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 26, "medium": 34, "hard": 40}[difficulty], title=title, date=date,
                      time=time, place=place)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


def _wanted(task: cb.Task) -> dict[str, str]:
    return {key: task.metadata[key] for key in calendar.FIELDS}


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    made = _wanted(task)

    def change(state: dict[str, Any]) -> None:
        events = state["calendar"]["events"]
        events[:] = calendar.in_order([*events, made])

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def put(hand: Hand, field: str, text: str) -> None:
    """The field ``field`` of the screen holds ``text`` (emptied for "")."""
    if text:
        await hand.fill(field, text)
    else:
        await hand.tap("textbox", field)
        await hand.key("ctrl", "a")
        await hand.key("backspace")


async def add(hand: Hand, values: dict[str, str]) -> None:
    await calendar.to_list(hand)
    await calendar.save_new_event(hand, values)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await add(Hand(session), _wanted(task))


@cb.wrong_way
async def saves_it_an_hour_late(task: cb.Task, session: cb.Session) -> None:
    values = _wanted(task)
    hours, minutes = values["time"].split(":")
    values["time"] = f"{int(hours) + 1:02d}:{minutes}"
    await add(Hand(session), values)


@cb.wrong_way
async def edits_the_first_event(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await calendar.to_list(hand)
    first = (await hand.texts("listitem", within=calendar.EVENTS))[0]
    await hand.tap("listitem", first, within=calendar.EVENTS)
    values = _wanted(task)
    for key in calendar.FIELDS:
        await put(hand, key.capitalize(), values[key])
    await hand.button("back")


@cb.wrong_way
async def oracle_twice(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await solve(task, session)
