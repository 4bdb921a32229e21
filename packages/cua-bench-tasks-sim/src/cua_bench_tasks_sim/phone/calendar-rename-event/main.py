"""calendar-rename-event: in Calendar, give an event a new title.

Easy: five events, the phone at home. Medium: twelve events, Calendar already open on another event.
Hard: thirty events, the event below the list's first screen (scroll), To-do on the launcher too and
open in front.

The evaluator checks the whole state of the phone's apps: the events are setup's with only that event's
title now exactly the new one (its date, time and place as they were, nothing else changed: no other
event, no new event, no draft, no other app); no dialog or overlay left open. Chance 0 (the title is
typed).

Wrong ways: ``renames_the_neighbour`` (the event on the next row gets the title),
``adds_to_the_old_title`` (the new title typed after the old one instead of over it) and
``makes_a_new_event_instead`` (a new event with the new title at the same date, time and place, the
old one left as it was).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, todo
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "calendar-rename-event"
SHAPE = {"easy": 5, "medium": 12, "hard": 30}  # events in the calendar
SCREEN = 24  # rows of the list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = calendar.sample(rng, SHAPE[difficulty])
    events = data["events"]
    ordered = calendar.in_order(events)
    target = rng.choice(ordered[SCREEN:] if difficulty == "hard" else ordered)
    title = rng.choice([t for t in calendar.titles() if t not in {e["title"] for e in events}])
    apps, state = ["calendar"], {"calendar": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("calendar", calendar.row(rng.choice([e for e in events if e is not target])))
    if difficulty == "hard":
        apps, state = ["calendar", "todo"], {"calendar": data, "todo": todo.sample(rng, 3)}
        opened = ("todo", None)
    old = target["title"]
    description = rng.choice([
        f'In Calendar, rename the event "{old}" to "{title}".',
        f'Change the title of the Calendar event "{old}" to "{title}".',
        f'The event "{old}" in Calendar should be called "{title}": retitle it.',
    ]) + " Keep its date, time and place, and change nothing else."  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 14, "medium": 16, "hard": 24}[difficulty], index=events.index(target),
                      target=calendar.row(target), title=title)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        events = state["calendar"]["events"]
        events[meta["index"]]["title"] = meta["title"]
        events[:] = calendar.in_order(events)

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await calendar.open_row(hand, task.metadata["target"])
    await hand.fill("Title", task.metadata["title"])
    await hand.button("back")


@cb.wrong_way
async def renames_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    neighbour = calendar.row_beside(task.metadata["data"]["calendar"]["events"], task.metadata["target"])
    await calendar.open_row(hand, neighbour)
    await hand.fill("Title", task.metadata["title"])
    await hand.button("back")


@cb.wrong_way
async def adds_to_the_old_title(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await calendar.open_row(hand, task.metadata["target"])
    await hand.tap("textbox", "Title")
    await hand.key("end")
    await hand.type(f" {task.metadata['title']}")
    await hand.button("back")


@cb.wrong_way
async def makes_a_new_event_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await calendar.to_list(hand)
    event = task.metadata["data"]["calendar"]["events"][task.metadata["index"]] | {"title": task.metadata["title"]}
    await calendar.save_new_event(hand, event)
