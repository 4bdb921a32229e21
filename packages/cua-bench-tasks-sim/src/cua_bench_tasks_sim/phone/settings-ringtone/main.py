"""settings-ringtone: in Settings > Sound, choose a named ringtone.

Easy: four ringtones, Settings the only app, the phone at home. Medium: six, Notes and Clock on the
launcher too, Settings already open on one of its sections. Hard: ten, and Vibrate must end a stated
way ("make sure Vibrate is on"): half the time it already is, and then it must not be touched.

The asked ringtone is never the one chosen at setup. The evaluator checks the whole state of the
phone's apps: setup's with the ringtone (and, hard, Vibrate) as asked and nothing else changed (the
volume, every other setting and app); no dialog or overlay left open. Chance: easy 0.03 (the Sound
row among four, then the right one of four radios and nothing else), medium 0.02, hard 0.005 (ten
radios, and Vibrate left or flipped as it must be).

Wrong ways: ``another_ringtone`` (a ringtone that was not asked for), ``oracle_then_flips_vibrate``
(the ringtone right, Vibrate flipped too) and ``oracle_then_moves_the_volume`` (the ringtone right,
the volume slid to an end and a step back).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_core import Point, Tap

FAMILY = "settings-ringtone"
RINGTONES = {"easy": 4, "medium": 6, "hard": 10}
CHANCE = {"easy": 0.03, "medium": 0.02, "hard": 0.005}
PHRASES = (
    'In Settings, change the ringtone to "{tone}".',
    'Set the phone\'s ringtone to "{tone}" (Settings > Sound).',
    'Open Settings and pick "{tone}" as the ringtone.',
    'Make "{tone}" the ringtone in the Settings app.',
)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = {"settings": settings.sample(rng, RINGTONES[difficulty])}
    sound = data["settings"]["sound"]
    tone = rng.choice([t for t in sound["ringtones"] if t != sound["ringtone"]])
    description = rng.choice(PHRASES).format(tone=tone)
    vibrate = None
    if difficulty == "hard":
        vibrate = rng.random() < 0.5
        description += f" Make sure Vibrate is {'on' if vibrate else 'off'} afterwards."
    apps = ["settings"]
    opened = None
    if difficulty != "easy":
        data["notes"] = notes.sample(rng, 3)
        data["clock"] = clock.sample(rng, 3)
        apps = rng.sample(["settings", "notes", "clock"], 3)
        opened = ("settings", rng.choice(settings.SECTIONS))
    return phone_task(description + " Change nothing else.", apps=apps, data=data, opened=opened,
                      chance=CHANCE[difficulty], max_steps=12, tone=tone, vibrate=vibrate)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, dict[str, dict[str, object]]]) -> None:
        state["settings"]["sound"]["ringtone"] = meta["tone"]
        if meta["vibrate"] is not None:
            state["settings"]["sound"]["vibrate"] = meta["vibrate"]

    return score(settled(session) and unchanged_but(task, session, change))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await settings.open_section(hand, "Sound")
    await hand.tap("radio", task.metadata["tone"], within=("radiogroup", "Ringtone"))
    want = task.metadata["vibrate"]
    if want is not None:
        await settings.set_box(hand, "Vibrate", want)


@cb.wrong_way
async def another_ringtone(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await settings.open_section(hand, "Sound")
    radios = await hand.find_all("radio", within=("radiogroup", "Ringtone"))
    other = next(r["name"] for r in radios if r["name"] != task.metadata["tone"] and "checked" not in r["states"])
    await hand.tap("radio", other, within=("radiogroup", "Ringtone"))


@cb.wrong_way
async def oracle_then_flips_vibrate(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await Hand(session).tap("checkbox", "Vibrate")


@cb.wrong_way
async def oracle_then_moves_the_volume(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    slider = await hand.find("slider", "Volume")
    left, top, right, bottom = slider["bounds"]
    low = slider["value"] < 50
    await hand.act(Tap(Point(right - 1 if low else left + 1, (top + bottom) / 2)))  # the far end: 100 or 0
    await hand.key("left" if low else "right")  # 99 or 1: not where it was
