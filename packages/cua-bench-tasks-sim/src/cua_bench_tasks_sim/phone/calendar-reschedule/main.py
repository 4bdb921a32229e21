"""calendar-reschedule: from a Calendar reminder in the notifications, move its event to a new time
(and, from medium on, a new date).

Easy: five events, one reminder, the phone at home, only the time changes. Medium: ten events, Calendar
already open on another event, a To-do notification posted after the reminder (so it shows first),
and the date changes too. Hard: twenty events, Notes and To-do on the launcher too, two Calendar
reminders (the one asked for and one about another event), date and time change.

The evaluator checks the whole state of the phone's apps: the events are setup's with only that event's
date and time now the new ones (title and place as they were, nothing else changed: no other event, no
new event, no draft, no other app); no dialog or overlay left open; and the method: the reminder about
that event was opened from the shade (``Notification.opened``), as the task says. Chance 0 (the new
time is typed).

Wrong ways: ``edits_it_from_the_launcher`` (the right change, but the event found in the list and the
reminder never opened), ``moves_the_neighbour`` (the reminder opened, then the event on the next row
moved instead), ``fifteen_minutes_off`` (the time a quarter of an hour late) and ``copies_it_instead``
(a new event with the same title at the new time, the old one left where it was).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, notes, todo
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "calendar-reschedule"
SHAPE = {"easy": 5, "medium": 10, "hard": 20}  # events in the calendar
SHADE = ("window", "Notifications")


def reminder(event: dict[str, str]) -> tuple[str, str, str, str]:
    """The Calendar notification about ``event``: (app, title, text, target)."""
    where = f" · {event['place']}" if event["place"] else ""
    text = calendar.shown_day(event["date"]) + where
    return "calendar", f"{event['title']} at {event['time']}", text, calendar.row(event)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = calendar.sample(rng, SHAPE[difficulty])
    events = data["events"]
    index = rng.randrange(len(events))
    target = events[index]
    month = target["date"][:8]
    date = target["date"]
    if difficulty != "easy":
        date = rng.choice([f"{month}{d:02d}" for d in range(1, 29) if f"{month}{d:02d}" != target["date"]])
    minutes = rng.choice([m for m in range(7 * 60, 21 * 60, 15) if f"{m // 60:02d}:{m % 60:02d}" != target["time"]])
    time = f"{minutes // 60:02d}:{minutes % 60:02d}"
    apps, state = ["calendar"], {"calendar": data}
    posted = [reminder(target)]
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("calendar", calendar.row(rng.choice([e for e in events if e is not target])))
        state["todo"] = todo.sample(rng, 3)
        apps.append("todo")
        first = state["todo"]["lists"][0]
        left = sum(1 for t in first["tasks"] if not t["done"])
        posted.append(("todo", f"{first['name']}: {left} open", "Tap to see the list", first["name"]))
    if difficulty == "hard":
        apps += ["notes", "todo"]
        state |= {"notes": notes.sample(rng, 3), "todo": todo.sample(rng, 3)}
        other = reminder(rng.choice([e for e in events if e is not target]))
        posted = [other, posted[0]] if rng.random() < 0.5 else [posted[0], other]
    when = f"{time} on the same day" if difficulty == "easy" else f"{date} at {time}"
    description = rng.choice([
        f'A Calendar reminder about "{target["title"]}" is in your notifications. Open it from there and move '
        f"that event to {when}.",
        f'From the notification shade, open the reminder for "{target["title"]}" and reschedule the event to {when}.',
        f'Use the "{target["title"]}" reminder in the notifications to open that event, then move it to {when}.',
    ]) + " Dates are YYYY-MM-DD and times HH:MM (24-hour) in Calendar. Change nothing else."  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, notifications=posted, chance=0.0,
                      max_steps={"easy": 16, "medium": 22, "hard": 22}[difficulty], index=index,
                      target=calendar.row(target), note=reminder(target)[1], date=date, time=time)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        events = state["calendar"]["events"]
        events[meta["index"]] |= {"date": meta["date"], "time": meta["time"]}
        events[:] = calendar.in_order(events)

    from_the_reminder = any(
        note.opened and note.app == "calendar" and note.target == meta["target"]
        for note in phone(session).notifications
    )
    return score(from_the_reminder and settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


def _event(task: cb.Task) -> dict[str, str]:
    return dict(task.metadata["data"]["calendar"]["events"][task.metadata["index"]])


async def from_the_reminder(hand: Hand, task: cb.Task) -> None:
    """The reminder about the event opened from the shade: the event's screen in front."""
    await hand.open_shade()
    await hand.tap("button", task.metadata["note"], within=SHADE)


async def move(hand: Hand, event: dict[str, str], date: str, time: str) -> None:
    """On the event's screen: its date and time set (each only when it changes), then back to the list."""
    if date != event["date"]:
        await hand.fill("Date", date)
    if time != event["time"]:
        await hand.fill("Time", time)
    await hand.button("back")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_the_reminder(hand, task)
    await move(hand, _event(task), task.metadata["date"], task.metadata["time"])


@cb.wrong_way
async def edits_it_from_the_launcher(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await calendar.open_row(hand, calendar.row(_event(task)))
    await move(hand, _event(task), task.metadata["date"], task.metadata["time"])


@cb.wrong_way
async def moves_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_the_reminder(hand, task)
    ordered = calendar.in_order(task.metadata["data"]["calendar"]["events"])
    place = [calendar.row(e) for e in ordered].index(task.metadata["target"])
    after = ordered[place + 1 :] + ordered[:place]  # the next row on, and round
    wanted = (task.metadata["date"], task.metadata["time"])
    neighbour = next(e for e in after if (e["date"], e["time"]) != wanted)
    await calendar.open_row(hand, calendar.row(neighbour))
    await move(hand, neighbour, task.metadata["date"], task.metadata["time"])


@cb.wrong_way
async def fifteen_minutes_off(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_the_reminder(hand, task)
    hours, minutes = map(int, task.metadata["time"].split(":"))
    late = hours * 60 + minutes + 15
    if f"{late // 60:02d}:{late % 60:02d}" == _event(task)["time"]:
        late += 15  # a quarter late would be where it was: half an hour late
    await move(hand, _event(task), task.metadata["date"], f"{late // 60:02d}:{late % 60:02d}")


@cb.wrong_way
async def copies_it_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_the_reminder(hand, task)
    await hand.button("back")
    values = _event(task) | {"date": task.metadata["date"], "time": task.metadata["time"]}
    await calendar.save_new_event(hand, values)
