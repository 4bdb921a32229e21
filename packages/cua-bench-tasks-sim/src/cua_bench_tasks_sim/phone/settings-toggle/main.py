"""settings-toggle: in Settings, turn a named switch (Wi-Fi, Bluetooth, Dark mode, Vibrate) on or off.

Easy: one switch, Settings the only app, the phone at home. Medium: one switch, Notes and Clock on the
launcher too, Settings already open on another section. Hard: two switches in different sections,
the other apps there, Settings open on a third section (or the one of a switch).

Each asked-for switch is asked for the value it does not have, so the task needs a change. The
evaluator checks the whole state of the phone's apps: setup's with exactly the asked switches at the
asked values (nothing else in Settings or any other app changed); no dialog or overlay left open.
Chance: easy 0.03 (a tap on the right one of four sections, then an odd number of taps on the right
one of a few boxes and none on anything else); medium 0.02 (more places to go astray); hard 0.002
(two such walks).

Wrong ways: ``toggles_another_switch`` (a switch that was not asked for, instead),
``oracle_then_airplane_mode`` (the switches right, then Airplane mode flipped too) and
``oracle_then_dims_the_screen`` (the switches right, then the brightness slid to 1).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_core import Point, Tap

FAMILY = "settings-toggle"
# (section in the store, key, the box's name, the screen it is on)
SWITCHES = (
    ("network", "wifi", "Wi-Fi", "Network"),
    ("network", "bluetooth", "Bluetooth", "Network"),
    ("display", "dark_mode", "Dark mode", "Display"),
    ("sound", "vibrate", "Vibrate", "Sound"),
)
SHAPE = {"easy": (4, 1), "medium": (6, 1), "hard": (8, 2)}  # ringtones, switches asked for
CHANCE = {"easy": 0.03, "medium": 0.02, "hard": 0.002}
PHRASES = (
    "In Settings, turn {asks}.",
    "Open Settings and turn {asks}.",
    "Using the Settings app, switch {asks}.",
    "Please turn {asks} in the phone's Settings.",
)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    ringtones, count = SHAPE[difficulty]
    data = {"settings": settings.sample(rng, ringtones)}
    picked: list[tuple[str, str, str, str]] = []
    for switch in rng.sample(SWITCHES, len(SWITCHES)):
        if all(switch[3] != other[3] for other in picked):  # two switches: two sections
            picked.append(switch)
        if len(picked) == count:
            break
    asked = [(section, key, name, screen, not data["settings"][section][key]) for section, key, name, screen in picked]
    apps = ["settings"]
    opened = None
    if difficulty != "easy":
        data["notes"] = notes.sample(rng, 3)
        data["clock"] = clock.sample(rng, 3)
        apps = rng.sample(["settings", "notes", "clock"], 3)
        elsewhere = [s for s in settings.SECTIONS if s not in {a[3] for a in asked}]
        opened = ("settings", rng.choice(elsewhere if difficulty == "medium" else list(settings.SECTIONS)))
    asks = " and ".join(f"{name} {'on' if want else 'off'}" for _, _, name, _, want in asked)
    description = rng.choice(PHRASES).format(asks=asks) + " Change nothing else."
    return phone_task(description, apps=apps, data=data, opened=opened, chance=CHANCE[difficulty],
                      max_steps=10 * count, asked=[[s, k, n, sc, w] for s, k, n, sc, w in asked])  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    def change(state: dict[str, dict[str, dict[str, object]]]) -> None:
        for section, key, _, _, want in task.metadata["asked"]:
            state["settings"][section][key] = want

    return score(settled(session) and unchanged_but(task, session, change))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    for _, _, name, screen, want in task.metadata["asked"]:
        await settings.open_section(hand, screen)
        await settings.set_box(hand, name, want)


@cb.wrong_way
async def toggles_another_switch(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    asked = {name for _, _, name, _, _ in task.metadata["asked"]}
    _, _, name, screen = next(s for s in SWITCHES if s[2] not in asked)
    await settings.open_section(hand, screen)
    await hand.tap("checkbox", name)


@cb.wrong_way
async def oracle_then_airplane_mode(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await settings.open_section(hand, "Network")
    await hand.tap("checkbox", "Airplane mode")


@cb.wrong_way
async def oracle_then_dims_the_screen(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await settings.open_section(hand, "Display")
    slider = await hand.find("slider", "Brightness")
    left, top, _, bottom = slider["bounds"]
    await hand.act(Tap(Point(left + 1, (top + bottom) / 2)))  # the track's left end: 0
    await hand.key("up")  # 1 (a seeded brightness is 5 or more)
