"""notes-delete: in Notes, delete a named note (its toolbar's Delete, then Delete in the dialog).

Easy: three notes, the phone at home. Medium: six, Notes open on another note. Hard: twelve, two of
them titled alike (the named one and one whose title begins the same), Photos on the launcher too and
open in front.

The evaluator checks the whole state of the phone's apps: the notes are setup's less the named one (the
others in their order, unchanged), and nothing else changed; no dialog or overlay left open (a Delete
not yet confirmed deletes nothing). Chance 0.01 easy, 0.005 otherwise: opening Notes, the one row, the
toolbar's Delete among three controls and the dialog's Delete, by random taps.

Wrong ways: ``deletes_the_neighbour`` (the note after it instead), ``oracle_then_the_neighbour`` (both),
``empties_it_instead`` (its title and text cleared, the note left).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import gallery, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "notes-delete"
SHAPE = {"easy": 3, "medium": 6, "hard": 12}  # notes there


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = notes.sample(rng, SHAPE[difficulty])
    target = rng.choice(data["notes"])
    titles = [n["title"] for n in data["notes"]]
    apps, state = ["notes"], {"notes": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("notes", rng.choice([t for t in titles if t != target["title"]]))
    elif difficulty == "hard":
        alike = rng.choice([n for n in data["notes"] if n is not target])
        alike["title"] = f"{target['title']} {rng.choice(['(old)', 'too', '2', 'copy'])}"
        apps, state = ["notes", "gallery"], {"notes": data, "gallery": gallery.sample(rng, 20)}
        opened = ("gallery", None)
    title = target["title"]
    description = rng.choice([f'In Notes, delete the note "{title}". Keep every other note.',
                              f'Remove the note titled "{title}" from Notes; leave the others alone.'])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.01 if difficulty == "easy" else 0.005,
                      max_steps={"easy": 10, "medium": 12, "hard": 14}[difficulty], title=title)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    title = task.metadata["title"]

    def change(state: dict[str, dict[str, list[dict[str, str]]]]) -> None:
        state["notes"]["notes"] = [n for n in state["notes"]["notes"] if n["title"] != title]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def delete(hand: Hand, title: str) -> None:
    await notes.open_note(hand, title)
    await hand.tap("button", "Delete")
    await hand.tap("button", "Delete", within=("dialog", "Notes"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), task.metadata["title"])


@cb.wrong_way
async def deletes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), notes.neighbour(task))


@cb.wrong_way
async def oracle_then_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await delete(Hand(session), notes.neighbour(task))


@cb.wrong_way
async def empties_it_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await notes.open_note(hand, task.metadata["title"])
    for box in ("Title", "Note"):
        await hand.tap("textbox", box)
        await hand.key("ctrl", "a")
        await hand.key("backspace")
