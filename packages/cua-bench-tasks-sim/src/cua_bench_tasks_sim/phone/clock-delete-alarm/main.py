"""clock-delete-alarm: in Clock, delete a named alarm (its screen's "Delete alarm", then the dialog's Delete).

Easy: four alarms, Clock the only app, the phone at home. Medium: eight alarms, Notes and Settings on
the launcher too, Clock already open on another alarm or the world clock. Hard: thirty alarms, the
one asked for below the first screenful of the list, and another alarm with the same label (only the
time tells them apart); the other apps there.

The evaluator checks the whole state of the phone's apps: the alarms are setup's without that one
(every other alarm as it was, in its place), the cities and the other apps as they were; no dialog
or overlay left open (a dialog left unanswered is not a deletion). Chance: easy 0.01 (the right row
of four, "Delete alarm" among a few controls, then Delete rather than Cancel), medium 0.005, hard
0.0002 (a swipe first).

Wrong ways: ``deletes_a_neighbour`` (the alarm listed next to it instead), ``toggles_it_instead``
(Enabled flipped: silenced, not deleted) and ``oracle_then_deletes_another`` (it and one more).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "clock-delete-alarm"
ALARMS = {"easy": 4, "medium": 8, "hard": 30}
CHANCE = {"easy": 0.01, "medium": 0.005, "hard": 0.0002}
SCREENFUL = 24  # rows of the alarm list in view before a swipe
PHRASES = (
    'In Clock, delete the {time} alarm ("{label}").',
    'Remove the "{label}" alarm set for {time} from the Clock app.',
    'Open Clock and delete the alarm at {time} labelled "{label}".',
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
        other = rng.choice([a for a in alarms if a is not alarm])
        if difficulty == "hard":  # a namesake, earlier in the list: the label alone would pick the wrong one
            twin = alarms[rng.choice(by_time[:SCREENFUL])]
            twin["label"] = alarm["label"]
        else:
            opened = ("clock", rng.choice([other["time"], "World clock"]))
    description = rng.choice(PHRASES).format(time=alarm["time"], label=alarm["label"])
    return phone_task(description + " Keep every other alarm.", apps=apps, data=data, opened=opened,
                      chance=CHANCE[difficulty], max_steps=12, index=index, alarm=dict(alarm))  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    def change(state: dict[str, Any]) -> None:
        del state["clock"]["alarms"][task.metadata["index"]]

    return score(settled(session) and unchanged_but(task, session, change))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await clock.to_alarms(hand)
    await clock.tap_alarm(hand, clock.row(task.metadata["alarm"]))
    await clock.delete_open_alarm(hand)


async def neighbour(hand: Hand, task: cb.Task) -> str:
    """The row next to the asked alarm's (above it, or below the first), on the list scrolled to it."""
    name = clock.row(task.metadata["alarm"])
    await hand.scroll_to("listitem", name, within=clock.ALARM_LIST)
    return await clock.row_beside(hand, name)


@cb.wrong_way
async def deletes_a_neighbour(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await clock.to_alarms(hand)
    await clock.tap_alarm(hand, await neighbour(hand, task))
    await clock.delete_open_alarm(hand)


@cb.wrong_way
async def toggles_it_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await clock.to_alarms(hand)
    await clock.tap_alarm(hand, clock.row(task.metadata["alarm"]))
    await hand.tap("checkbox", "Enabled")


@cb.wrong_way
async def oracle_then_deletes_another(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await clock.to_alarms(hand)
    other = await neighbour(hand, task)
    await solve(task, session)
    await clock.tap_alarm(hand, other)
    await clock.delete_open_alarm(hand)
