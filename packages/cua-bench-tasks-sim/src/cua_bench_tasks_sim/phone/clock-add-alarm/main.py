"""clock-add-alarm: in Clock, add an alarm at a given time with a given label.

Easy: three alarms, Clock the only app, the phone at home, the time as "06:45". Medium: six alarms,
Notes and Settings on the launcher too, Clock already open on an alarm or the world clock. Hard: ten
alarms, the other apps there, Clock open somewhere, and the time in 12-hour form ("6:45 PM"), to be
set as the 24-hour dropdowns have it.

The time is no alarm's already, the label no alarm's. The evaluator checks the whole state of the
phone's apps: the alarms are setup's with the new one after them (time and label exact, on), the
world clock's cities as they were, nothing else changed; no dialog or overlay left open. Chance 0
(the label is typed).

Wrong ways: ``edits_an_existing_alarm`` (an old alarm given the time and label instead),
``twelve_hours_off`` (the hour the other side of noon), ``saves_without_a_label`` (an "Alarm") and
``oracle_twice`` (the alarm added twice).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "clock-add-alarm"
ALARMS = {"easy": 3, "medium": 6, "hard": 10}
PHRASES = (
    'In Clock, add an alarm at {time} labelled "{label}".',
    'Set a new alarm for {time} called "{label}" in the Clock app.',
    'Create an alarm in Clock: {time}, label "{label}".',
    'Open Clock and add a "{label}" alarm for {time}.',
)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data: dict[str, Any] = {"clock": clock.sample(rng, ALARMS[difficulty])}
    alarms = data["clock"]["alarms"]
    taken = {alarm["time"] for alarm in alarms}
    time = rng.choice([f"{h}:{m}" for h in clock.HOURS for m in clock.MINUTES if f"{h}:{m}" not in taken])
    label = rng.choice([label for label in clock.LABELS if label not in {a["label"] for a in alarms}])
    apps = ["clock"]
    opened = None
    if difficulty != "easy":
        data["notes"] = notes.sample(rng, 3)
        data["settings"] = settings.sample(rng, 4)
        apps = rng.sample(["clock", "notes", "settings"], 3)
        opened = ("clock", rng.choice([rng.choice(alarms)["time"], "World clock"]))
    shown = clock.twelve_hour(time) if difficulty == "hard" else time
    description = rng.choice(PHRASES).format(time=shown, label=label) + " Change nothing else."
    return phone_task(description, apps=apps, data=data, opened=opened, chance=0.0, max_steps=28, time=time,
                      label=label)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    made = {"time": task.metadata["time"], "label": task.metadata["label"], "enabled": True}
    return score(settled(session) and unchanged_but(task, session, lambda s: s["clock"]["alarms"].append(made)))


async def fill_alarm(hand: Hand, time: str, label: str | None) -> None:
    await clock.choose(hand, "Hour", time[:2])
    await clock.choose(hand, "Minute", time[3:])
    if label is not None:
        await hand.fill("Label", label)


async def add_alarm(hand: Hand, time: str, label: str | None) -> None:
    await clock.to_alarms(hand)
    await hand.tap("button", "New alarm")
    await fill_alarm(hand, time, label)
    await hand.tap("button", "Save")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await add_alarm(Hand(session), task.metadata["time"], task.metadata["label"])


@cb.wrong_way
async def edits_an_existing_alarm(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await clock.to_alarms(hand)
    first = (await hand.texts("listitem", within=clock.ALARM_LIST))[0]
    await hand.tap("listitem", first, within=clock.ALARM_LIST)
    await fill_alarm(hand, task.metadata["time"], task.metadata["label"])
    await hand.button("back")


@cb.wrong_way
async def twelve_hours_off(task: cb.Task, session: cb.Session) -> None:
    time = task.metadata["time"]
    await add_alarm(Hand(session), f"{(int(time[:2]) + 12) % 24:02d}{time[2:]}", task.metadata["label"])


@cb.wrong_way
async def saves_without_a_label(task: cb.Task, session: cb.Session) -> None:
    await add_alarm(Hand(session), task.metadata["time"], None)


@cb.wrong_way
async def oracle_twice(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await solve(task, session)
