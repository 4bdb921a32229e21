"""notes-from-reminder: a Notes reminder waits in the notifications; open it and add a given line at
the end of the note it opens (the note is not named: the notification is the only way to it).

Easy: three notes, one notification, the phone at home. Medium: six notes, a second Notes reminder
(for another note), Notes open on a third note. Hard: ten notes, three Notes reminders, Photos on the
launcher too with a notification of its own, Photos open in front.

The evaluator checks that the named notification was opened (the phone's record of it, set only by
tapping it in the shade) and the whole state of the phone's apps: the notes are setup's with only that
notification's note's text changed, to its old text, a line break and the new line exactly, and nothing
else changed; no dialog or overlay left open. Chance 0 (the line is typed).

Wrong ways: ``from_the_launcher`` (the right note edited, reached from the list, the notification left
unopened), ``opens_it_then_edits_another_note`` (the notification opened, the line added to the next
note of the list), ``on_the_same_line`` (the notification opened, the line typed straight after the
last character, no line break).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import gallery, notes
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
from cua_bench_tasks_sim._phone.words import sentence

FAMILY = "notes-from-reminder"
SHAPE = {"easy": (3, 1), "medium": (6, 2), "hard": (10, 3)}  # notes there, Notes reminders


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, reminders = SHAPE[difficulty]
    data = notes.sample(rng, count)
    targets = rng.sample(data["notes"], reminders)  # the first is the task's
    target = targets[0]
    line = sentence(rng)
    while line in target["body"].split("\n"):
        line = sentence(rng)
    times = sorted(rng.sample(range(7 * 4, 22 * 4), reminders), key=lambda _: rng.random())
    titles = [f"Reminder {t // 4:02d}:{t % 4 * 15:02d}" for t in times]
    posted = [("notes", title, "Tap to open the note", note["title"])
              for title, note in zip(titles, targets, strict=True)]  # fmt: skip
    apps, state = ["notes"], {"notes": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("notes", rng.choice([n for n in data["notes"] if n not in targets])["title"])
    elif difficulty == "hard":
        roll = gallery.sample(rng, 20)
        photo = rng.choice([p for p in roll["photos"] if not p["deleted"]])["name"]
        posted.append(("gallery", "New memories", "A day to look back on", photo))
        apps, state = ["notes", "gallery"], {"notes": data, "gallery": roll}
        opened = ("gallery", None)
    rng.shuffle(posted)
    description = rng.choice([
        f'Open the Notes notification "{titles[0]}" and add the line "{line}" at the end of the note it opens. '
        "Change nothing else.",
        f'A Notes reminder, "{titles[0]}", is waiting in the notifications. Open it from there and append the '
        f'line "{line}" as the last line of the note it shows. Change nothing else.',
    ])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, notifications=posted, chance=0.0,
                      max_steps={"easy": 10, "medium": 12, "hard": 14}[difficulty], reminder=titles[0],
                      title=target["title"], line=line)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    index = notes.note_index(task, meta["title"])
    opened = any(n.app == "notes" and n.title == meta["reminder"] and n.opened for n in phone(session).notifications)

    def change(state: dict[str, Any]) -> None:
        note = state["notes"]["notes"][index]
        note["body"] = f"{note['body']}\n{meta['line']}"

    return score(opened and settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def from_the_shade(hand: Hand, reminder: str) -> None:
    """The shade pulled down and the reminder tapped: its note opens."""
    await hand.open_shade()
    await hand.tap("button", reminder, within=("window", "Notifications"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_the_shade(hand, task.metadata["reminder"])
    await notes.type_into(hand, "\n" + task.metadata["line"])


@cb.wrong_way
async def from_the_launcher(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await notes.open_note(hand, task.metadata["title"])
    await notes.type_into(hand, "\n" + task.metadata["line"])


@cb.wrong_way
async def opens_it_then_edits_another_note(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_the_shade(hand, task.metadata["reminder"])
    await hand.button("back")
    await hand.tap("listitem", notes.neighbour(task), within=notes.LIST)
    await notes.type_into(hand, "\n" + task.metadata["line"])


@cb.wrong_way
async def on_the_same_line(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_the_shade(hand, task.metadata["reminder"])
    await notes.type_into(hand, " " + task.metadata["line"])
