"""settings-brightness: in Settings > Display, set the Brightness slider to a value.

Easy: a level in percent ("set the brightness to 35%"), Settings the only app, the phone at home.
Medium: the same, Notes and Clock on the launcher too, Settings already open on one of its sections
(Display among them). Hard: a change relative to where the slider is now ("lower the brightness by
20"), which means reading the slider first; the other apps there and Settings open somewhere.

The evaluator checks the whole state of the phone's apps: setup's with the brightness exactly the
asked level and nothing else changed (the volume, the dark mode, every other setting and app); no
dialog or overlay left open. No tolerance: the slider shows its number, steps by 1 with the arrow
keys and lands within a step of where a tap or a drag puts it, so the exact level is always
reachable, and a tolerance would pass an overshoot (a key press too many). Chance 0.002 (the Display
row, then a tap on the one right pixel of a 200-pixel track, or the right number of key presses).

Wrong ways: ``off_by_one`` (a step past the level), ``sets_the_volume_instead`` (the Sound screen's
slider to the level) and ``oracle_then_dark_mode`` (the level right, then Dark mode flipped too).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import clock, notes, settings
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_core import Point, Tap

FAMILY = "settings-brightness"
RINGTONES = {"easy": 4, "medium": 6, "hard": 8}
ABSOLUTE = (
    "In Settings, set the screen brightness to {level}%.",
    "Open Settings > Display and put the Brightness slider at exactly {level}.",
    "Set the phone's display brightness to {level} (out of 100) in Settings.",
)
RELATIVE = (
    "The screen is too {feel}: in Settings, {verb} the brightness by {delta} from where it is now.",
    "In Settings > Display, {verb} the Brightness slider by exactly {delta}.",
)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = {"settings": settings.sample(rng, RINGTONES[difficulty])}
    display = data["settings"]["display"]
    now = display["brightness"]
    if difficulty == "hard":
        delta = rng.choice(range(10, 45, 5))
        down = now - delta >= 0 and (now + delta > 100 or rng.random() < 0.5)
        level = now - delta if down else now + delta
        feel, verb = ("bright", "lower") if down else ("dim", "raise")
        description = rng.choice(RELATIVE).format(feel=feel, verb=verb, delta=delta)
    else:
        level = rng.choice([v for v in range(101) if abs(v - now) >= 3])
        description = rng.choice(ABSOLUTE).format(level=level)
    sound = data["settings"]["sound"]
    if sound["volume"] == level:  # the volume-instead wrong way must change something
        sound["volume"] = (level + 7) % 101
    apps = ["settings"]
    opened = None
    if difficulty != "easy":
        data["notes"] = notes.sample(rng, 3)
        data["clock"] = clock.sample(rng, 3)
        apps = rng.sample(["settings", "notes", "clock"], 3)
        opened = ("settings", rng.choice(settings.SECTIONS))
    return phone_task(description + " Change nothing else.", apps=apps, data=data, opened=opened, chance=0.002,
                      max_steps=12, level=level)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    def change(state: dict[str, dict[str, dict[str, object]]]) -> None:
        state["settings"]["display"]["brightness"] = task.metadata["level"]

    return score(settled(session) and unchanged_but(task, session, change))


async def set_slider(hand: Hand, name: str, level: int) -> None:
    """A tap on the track where ``level`` is, then the arrow keys to the exact number it shows."""
    left, top, right, bottom = (await hand.find("slider", name))["bounds"]
    await hand.act(Tap(Point(left + level / 100 * (right - left), (top + bottom) / 2)))
    for _ in range(100):
        now = await hand.value("slider", name)
        if now == level:
            return
        await hand.key("right" if now < level else "left")
    raise cb.TaskError(f"the {name} slider would not reach {level}")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await settings.open_section(hand, "Display")
    await set_slider(hand, "Brightness", task.metadata["level"])


@cb.wrong_way
async def off_by_one(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    level = task.metadata["level"]
    await settings.open_section(hand, "Display")
    await set_slider(hand, "Brightness", level + 1 if level < 100 else level - 1)


@cb.wrong_way
async def sets_the_volume_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await settings.open_section(hand, "Sound")
    await set_slider(hand, "Volume", task.metadata["level"])


@cb.wrong_way
async def oracle_then_dark_mode(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await Hand(session).tap("checkbox", "Dark mode")
