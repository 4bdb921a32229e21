"""clock-toggle-alarm: in Clock, turn a named alarm off (or on).

Easy: four alarms, Clock the only app, the phone at home. Medium: eight alarms, Notes and Settings on
the launcher too, Clock already open on another alarm or the world clock. Hard: thirty alarms, the
one asked for below the first screenful of the list (a swipe to reach it), the other apps there.

The alarm is named by its time and label, and asked to be the other way from how it is. The
evaluator checks the whole state of the phone's apps: setup's with exactly that alarm's Enabled
flipped (its time and label, every other alarm, the cities and the other apps as they were); no
dialog or overlay left open. Chance: easy 0.02 (the right row of four, then Enabled among a few
controls, and nothing else), medium 0.01, hard 0.0005 (a swipe first).

Wrong ways: ``toggles_a_neighbour`` (the alarm listed next to it instead), ``deletes_it_instead``
(it goes off by going away) and ``oracle_then_moves_its_minute`` (flipped, and its minute changed too).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "clock-toggle-alarm"
ALARMS = {"easy": 4, "medium": 8, "hard": 30}
CHANCE = {"easy": 0.02, "medium": 0.01, "hard": 0.0005}
SCREENFUL = 24  # rows of the alarm list in view before a swipe
PHRASES = (
    'In Clock, turn {state} the {time} alarm ("{label}").',
    'Switch the "{label}" alarm at {time} {state} in the Clock app.',
    'Open Clock and turn {state} the alarm set for {time} ("{label}").',
)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data: dict[str, Any] = {"clock": clock.sample(rng, ALARMS[difficulty])}
    alarms = data["clock"]["alarms"]
    by_time = sorted(range(len(alarms)), key=lambda i: alarms[i]["time"])
    index = rng.choice(by_time[SCREENFUL + 1 :] if difficulty == "hard" else by_time)
    alarm = alarms[index]
    apps = ["clock"]
    opened = None
    if difficulty != "easy":
        data["notes"] = notes.sample(rng, 3)
        data["settings"] = settings.sample(rng, 4)
        apps = rng.sample(["clock", "notes", "settings"], 3)
        other = rng.choice([a for a in alarms if a is not alarm])["time"]
        opened = ("clock", rng.choice([other, "World clock"]) if difficulty == "medium" else None)
    state = "off" if alarm["enabled"] else "on"
    description = rng.choice(PHRASES).format(state=state, time=alarm["time"], label=alarm["label"])
    return phone_task(description + " Change nothing else.", apps=apps, data=data, opened=opened,
                      chance=CHANCE[difficulty], max_steps=12, index=index, alarm=dict(alarm))  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        state["clock"]["alarms"][meta["index"]]["enabled"] = not meta["alarm"]["enabled"]

    return score(settled(session) and unchanged_but(task, session, change))


async def open_alarm(hand: Hand, alarm: dict[str, Any]) -> None:
    """The alarm's screen: where Clock is open on it already, as it is; else from the list, scrolled to."""
    await hand.launch("Clock")
    if await hand.shows("window", f"Alarm {alarm['time']}"):
        return
    while not await hand.shows(*clock.ALARM_LIST):
        await hand.button("back")
    await clock.tap_alarm(hand, clock.row(alarm))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_alarm(hand, task.metadata["alarm"])
    await hand.tap("checkbox", "Enabled")


@cb.wrong_way
async def toggles_a_neighbour(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_alarm(hand, task.metadata["alarm"])
    await hand.button("back")
    neighbour = await clock.row_beside(hand, clock.row(task.metadata["alarm"]))
    await hand.tap("listitem", neighbour, within=clock.ALARM_LIST)
    await hand.tap("checkbox", "Enabled")


@cb.wrong_way
async def deletes_it_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_alarm(hand, task.metadata["alarm"])
    await clock.delete_open_alarm(hand)


@cb.wrong_way
async def oracle_then_moves_its_minute(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    minute = await hand.value("combobox", "Minute")
    await clock.choose(hand, "Minute", clock.MINUTES[(clock.MINUTES.index(minute) + 1) % len(clock.MINUTES)])
