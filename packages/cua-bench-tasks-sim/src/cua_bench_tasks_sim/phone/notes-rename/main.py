"""notes-rename: in Notes, give a named note a new title.

Easy: three notes, the phone at home. Medium: six, Notes open on another note. Hard: twelve, Photos on
the launcher too and open in front.

The evaluator checks the whole state of the phone's apps: the notes are setup's with only the named
note's title changed, to the new title exactly (its text and its place in the list as they were), and
nothing else changed; no dialog or overlay left open. Chance 0 (the title is typed).

Wrong ways: ``renames_the_neighbour`` (the note after it given the title instead), ``a_letter_short``
(the new title less its last letter), ``new_note_instead`` (a new note with the new title and the old
note's text, the old one left).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import gallery, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_bench_tasks_sim._phone.words import TOPICS

FAMILY = "notes-rename"
SHAPE = {"easy": 3, "medium": 6, "hard": 12}  # notes there


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = notes.sample(rng, SHAPE[difficulty])
    titles = [n["title"] for n in data["notes"]]
    target = rng.choice(data["notes"])
    old = target["title"]
    new = rng.choice([rng.choice([t for t in TOPICS if t not in titles]), f"{old} {rng.randrange(2024, 2027)}",
                      f"Old {old.lower()}", f"{old} (done)"])  # fmt: skip
    apps, state = ["notes"], {"notes": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("notes", rng.choice([t for t in titles if t != old]))
    elif difficulty == "hard":
        apps, state = ["notes", "gallery"], {"notes": data, "gallery": gallery.sample(rng, 20)}
        opened = ("gallery", None)
    description = rng.choice([f'In Notes, rename the note "{old}" to "{new}". Change nothing else.',
                              f'Change the title of the note "{old}" in Notes to "{new}", keeping its text. '
                              "Change nothing else."])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 10, "medium": 12, "hard": 14}[difficulty], title=old, new=new)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    index = notes.note_index(task, meta["title"])

    def change(state: dict[str, Any]) -> None:
        state["notes"]["notes"][index]["title"] = meta["new"]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def rename(hand: Hand, title: str, new: str) -> None:
    await notes.open_note(hand, title)
    await hand.fill("Title", new)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await rename(Hand(session), task.metadata["title"], task.metadata["new"])


@cb.wrong_way
async def renames_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await rename(Hand(session), notes.neighbour(task), task.metadata["new"])


@cb.wrong_way
async def a_letter_short(task: cb.Task, session: cb.Session) -> None:
    await rename(Hand(session), task.metadata["title"], task.metadata["new"][:-1])


@cb.wrong_way
async def new_note_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    body = task.metadata["data"]["notes"]["notes"][notes.note_index(task, task.metadata["title"])]["body"]
    await notes.to_list(hand)
    await notes.save_new_note(hand, task.metadata["new"], body)
