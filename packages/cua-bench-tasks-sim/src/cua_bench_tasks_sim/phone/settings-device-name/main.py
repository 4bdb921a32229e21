"""settings-device-name: in Settings > About, give the phone a new device name.

Easy: Settings the only app, the phone at home. Medium: Notes and Clock on the launcher too, Settings
already open on one of its sections. Hard: Settings has posted a notification ("Name your phone"),
among a Clock one, and the task says to rename the phone from it.

The evaluator checks the whole state of the phone's apps: setup's with the device name exactly the
new one (case, spaces and apostrophe included) and nothing else changed; no dialog or overlay left
open; hard, also that the Settings notification was the way in (the phone marks it opened when it is
tapped in the shade). Chance 0 (the name is typed).

Wrong ways: ``types_after_the_old_name`` (the new name typed without clearing the old one),
``lower_case`` (the name in lower case) and ``oracle_then_turns_bluetooth`` (the name right, then
Bluetooth flipped too).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import (
    Hand,
    install,
    loaders,
    phone,
    phone_task,
    score,
    settled,
    unchanged_but,
)
from cua_bench_tasks_sim._phone.words import FIRST_NAMES

FAMILY = "settings-device-name"
KINDS = ("phone", "Pixel", "work phone", "travel phone", "Android", "mobile", "handset")
PHRASES = (
    'In Settings, rename this phone to "{name}".',
    'Change the device name in Settings > About to "{name}".',
    'Set the phone\'s device name to "{name}" in the Settings app.',
)
NOTE = ("settings", "Name your phone", "Give this phone a name other devices will see", "About")


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = {"settings": settings.sample(rng, 4)}
    old = data["settings"]["about"]["device_name"]
    name = rng.choice([n for n in (f"{f}'s {k}" for f in FIRST_NAMES for k in KINDS) if n != old])
    apps = ["settings"]
    opened = None
    notifications: list[tuple[str, str, str, str | None]] = []
    if difficulty != "easy":
        data["notes"] = notes.sample(rng, 3)
        data["clock"] = clock.sample(rng, 3)
        apps = rng.sample(["settings", "notes", "clock"], 3)
    if difficulty == "medium":
        opened = ("settings", rng.choice(settings.SECTIONS))
        description = rng.choice(PHRASES).format(name=name)
    elif difficulty == "hard":
        alarm = rng.choice(data["clock"]["alarms"])
        reminder = ("clock", f"Alarm at {alarm['time']}", str(alarm["label"]), str(alarm["time"]))
        notifications = rng.sample([NOTE, reminder], 2)
        description = (
            f'Settings has sent a notification asking you to name your phone. Open it and name the phone "{name}".'
        )
    else:
        description = rng.choice(PHRASES).format(name=name)
    return phone_task(description + " Change nothing else.", apps=apps, data=data, opened=opened,
                      notifications=notifications, chance=0.0, max_steps=14, name=name)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, dict[str, dict[str, object]]]) -> None:
        state["settings"]["about"]["device_name"] = meta["name"]

    followed = all(n.opened for n in phone(session).notifications if n.app == "settings")
    return score(followed and settled(session) and unchanged_but(task, session, change))


async def to_about(hand: Hand, task: cb.Task) -> None:
    """The About screen: from the notification when there is one, else through Settings' list."""
    if task.metadata["notifications"]:
        await hand.open_shade()
        await hand.tap("button", NOTE[1], within=("window", "Notifications"))
        return
    await settings.open_section(hand, "About")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_about(hand, task)
    await hand.fill("Device name", task.metadata["name"])


@cb.wrong_way
async def types_after_the_old_name(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_about(hand, task)
    await hand.tap("textbox", "Device name")
    await hand.key("end")
    await hand.type(task.metadata["name"])


@cb.wrong_way
async def lower_case(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_about(hand, task)
    await hand.fill("Device name", task.metadata["name"].lower())


@cb.wrong_way
async def oracle_then_turns_bluetooth(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.button("back")  # About -> the list
    await hand.tap("listitem", "Network", within=("list", "Settings"))
    await hand.tap("checkbox", "Bluetooth")
