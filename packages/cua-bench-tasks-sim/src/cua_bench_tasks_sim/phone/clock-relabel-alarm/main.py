"""clock-relabel-alarm: in Clock, give a named alarm a new label.

Easy: four alarms, Clock the only app, the phone at home. Medium: eight alarms, Notes and Settings on
the launcher too, Clock already open on another alarm or the world clock. Hard: thirty alarms, the
one asked for below the first screenful of the list, named by its time in 12-hour form ("6:45 PM")
where the list has "18:45"; the other apps there.

The new label is no alarm's. The evaluator checks the whole state of the phone's apps: setup's with
exactly that alarm's label replaced by the new one (its time and Enabled, every other alarm, the
cities and the other apps as they were); no dialog or overlay left open. Chance 0 (the label is
typed).

Wrong ways: ``relabels_a_neighbour`` (the alarm listed next to it instead), ``appends_to_the_old_label``
(the new label typed after the old one) and ``oracle_then_toggles_it`` (relabelled, and Enabled flipped).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "clock-relabel-alarm"
ALARMS = {"easy": 4, "medium": 8, "hard": 30}
SCREENFUL = 24  # rows of the alarm list in view before a swipe
PHRASES = (
    'In Clock, change the label of the {time} alarm from "{old}" to "{new}".',
    'Rename the "{old}" alarm at {time} to "{new}" in the Clock app.',
    'Open Clock and relabel the alarm set for {time} ("{old}") as "{new}".',
)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data: dict[str, Any] = {"clock": clock.sample(rng, ALARMS[difficulty])}
    alarms = data["clock"]["alarms"]
    by_time = sorted(range(len(alarms)), key=lambda i: alarms[i]["time"])
    index = rng.choice(by_time[SCREENFUL + 1 :] if difficulty == "hard" else by_time)
    alarm = alarms[index]
    new = rng.choice([label for label in clock.LABELS if label not in {a["label"] for a in alarms}] or ["Alarm 2"])
    apps = ["clock"]
    opened = None
    if difficulty != "easy":
        data["notes"] = notes.sample(rng, 3)
        data["settings"] = settings.sample(rng, 4)
        apps = rng.sample(["clock", "notes", "settings"], 3)
        if difficulty == "medium":
            opened = ("clock", rng.choice([rng.choice([a for a in alarms if a is not alarm])["time"], "World clock"]))
    time = clock.twelve_hour(alarm["time"]) if difficulty == "hard" else alarm["time"]
    description = rng.choice(PHRASES).format(time=time, old=alarm["label"], new=new)
    return phone_task(description + " Change nothing else.", apps=apps, data=data, opened=opened, chance=0.0,
                      max_steps=14, index=index, alarm=dict(alarm), new=new)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        state["clock"]["alarms"][meta["index"]]["label"] = meta["new"]

    return score(settled(session) and unchanged_but(task, session, change))


async def to_row(hand: Hand, name: str) -> None:
    """Clock in front on its list of alarms, scrolled to the row ``name``."""
    await clock.to_alarms(hand)
    await hand.scroll_to("listitem", name, within=clock.ALARM_LIST)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    name = clock.row(task.metadata["alarm"])
    await to_row(hand, name)
    await hand.tap("listitem", name, within=clock.ALARM_LIST)
    await hand.fill("Label", task.metadata["new"])


@cb.wrong_way
async def relabels_a_neighbour(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    name = clock.row(task.metadata["alarm"])
    await to_row(hand, name)
    await hand.tap("listitem", await clock.row_beside(hand, name), within=clock.ALARM_LIST)
    await hand.fill("Label", task.metadata["new"])


@cb.wrong_way
async def appends_to_the_old_label(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    name = clock.row(task.metadata["alarm"])
    await to_row(hand, name)
    await hand.tap("listitem", name, within=clock.ALARM_LIST)
    await hand.tap("textbox", "Label")
    await hand.key("end")
    await hand.type(task.metadata["new"])


@cb.wrong_way
async def oracle_then_toggles_it(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await Hand(session).tap("checkbox", "Enabled")
