"""settings-airplane: in Settings > Network, turn Airplane mode on (or off), with what it does to the radios.

Easy: turn it on (Wi-Fi and or Bluetooth on before) or off (it is on, the radios off), Settings the
only app, the phone at home. Medium: the same, Notes and Clock on the launcher too, Settings already
open on one of its sections. Hard: turn it on but end with one radio on ("keep Bluetooth on for your
headphones"): Airplane mode turns both off, so that one has to be turned on again afterwards.

The evaluator checks the whole state of the phone's apps against setup's with the whole Network
section as a phone leaves it: on, Airplane mode on with Wi-Fi and Bluetooth off (hard: the kept one
on); off, Airplane mode off with the radios as they were (off: turning it off does not bring them
back). Nothing else changed; no dialog or overlay left open. Chance 0.03 (the Network row among four,
then an odd number of taps on the right one of three boxes); hard 0.005 (and then a tap on the right
other box).

Wrong ways: ``flips_wifi_instead`` (Wi-Fi toggled, Airplane mode left alone),
``gets_the_exception_wrong`` (hard: the kept radio left off; else one radio turned on after the
right Airplane mode) and ``oracle_then_dark_mode`` (the network right, Dark mode flipped too).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_bench_tasks_sim._phone.words import CITIES

FAMILY = "settings-airplane"
RADIOS = {"wifi": "Wi-Fi", "bluetooth": "Bluetooth"}
ON = (
    "Turn on Airplane mode in Settings.",
    "Your flight to {city} is boarding: switch the phone to Airplane mode (Settings > Network).",
    "In Settings, enable Airplane mode before the flight to {city}.",
)
OFF = (
    "Turn Airplane mode off in Settings.",
    "You've landed in {city}: switch Airplane mode off in the Settings app.",
    "In Settings, disable Airplane mode now that the flight to {city} is over.",
)
KEEP = {
    "wifi": "Turn on Airplane mode in Settings, but keep Wi-Fi on: the flight to {city} has Wi-Fi. Wi-Fi must be "
    "on and Bluetooth off at the end.",
    "bluetooth": "Your flight to {city} is boarding: switch the phone to Airplane mode in Settings, but keep "
    "Bluetooth on for your headphones. Bluetooth must be on and Wi-Fi off at the end.",
}


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = {"settings": settings.sample(rng, {"easy": 4, "medium": 6, "hard": 8}[difficulty])}
    network = data["settings"]["network"]
    turn_on = difficulty == "hard" or rng.random() < 0.6
    city = rng.choice(CITIES)
    keep = None
    if turn_on:  # Airplane mode off, and at least one radio on for it to turn off
        network["airplane"] = False
        if not (network["wifi"] or network["bluetooth"]):
            network[rng.choice(list(RADIOS))] = True
        want = {"wifi": False, "bluetooth": False, "airplane": True}
        description = rng.choice(ON).format(city=city)
        if difficulty == "hard":
            keep = rng.choice(list(RADIOS))
            want[keep] = True
            description = KEEP[keep].format(city=city)
    else:
        network.update(wifi=False, bluetooth=False, airplane=True)
        want = {"wifi": False, "bluetooth": False, "airplane": False}
        description = rng.choice(OFF).format(city=city)
    apps = ["settings"]
    opened = None
    if difficulty != "easy":
        data["notes"] = notes.sample(rng, 3)
        data["clock"] = clock.sample(rng, 3)
        apps = rng.sample(["settings", "notes", "clock"], 3)
        opened = ("settings", rng.choice(settings.SECTIONS))
    chance = 0.03 if keep is None else 0.005
    return phone_task(description + " Change nothing else.", apps=apps, data=data, opened=opened, chance=chance,
                      max_steps=12, want=want, keep=keep)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    def change(state: dict[str, dict[str, dict[str, object]]]) -> None:
        state["settings"]["network"].update(task.metadata["want"])

    return score(settled(session) and unchanged_but(task, session, change))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    want = task.metadata["want"]
    await settings.open_section(hand, "Network")
    await settings.set_box(hand, "Airplane mode", want["airplane"])
    for key, name in RADIOS.items():  # what Airplane mode left, put as asked
        await settings.set_box(hand, name, want[key])


@cb.wrong_way
async def flips_wifi_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await settings.open_section(hand, "Network")
    await hand.tap("checkbox", "Wi-Fi")


@cb.wrong_way
async def gets_the_exception_wrong(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    want = task.metadata["want"]
    await settings.open_section(hand, "Network")
    await settings.set_box(hand, "Airplane mode", want["airplane"])
    if task.metadata["keep"] is None:
        await hand.tap("checkbox", "Bluetooth")  # an exception nobody asked for


@cb.wrong_way
async def oracle_then_dark_mode(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.button("back")
    await hand.tap("listitem", "Display", within=("list", "Settings"))
    await hand.tap("checkbox", "Dark mode")
