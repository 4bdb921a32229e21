"""notes-create: in Notes, make a new note with a given title and text.

Easy: three notes, the phone at home. Medium: six, Notes already open on one of them. Hard: ten, and
the note's text is two lines.

The evaluator checks the whole state of the phone's apps: the notes are setup's with the new one
after them, title and text exact, and nothing else changed; no dialog or overlay left open. Chance 0
(the title and text are typed).

Wrong ways: ``saves_without_a_title`` (the text only: an "Untitled" note), ``edits_an_existing_note``
(an old note given the title and text instead) and ``oracle_twice`` (the note made twice).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_bench_tasks_sim._phone.words import TOPICS, sentence

FAMILY = "notes-create"
SHAPE = {"easy": (3, 1), "medium": (6, 1), "hard": (10, 2)}  # notes there, lines of the new note


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, lines = SHAPE[difficulty]
    data = notes.sample(rng, count)
    titles = [note["title"] for note in data["notes"]]
    title = rng.choice([t for t in TOPICS if t not in titles])
    body = "\n".join(sentence(rng) for _ in range(lines))
    opened = ("notes", rng.choice(titles)) if difficulty == "medium" else None
    shown = "\n".join(f"    {line}" for line in body.split("\n"))
    description = (f'In Notes, create a new note titled "{title}" whose text is exactly:\n{shown}\n'
                   "(without the leading spaces). Change no other note.")  # fmt: skip
    return phone_task(description, apps=["notes"], data={"notes": data}, opened=opened, chance=0.0, max_steps=10,
                      title=title, body=body)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    made = {"title": meta["title"], "body": meta["body"]}
    return score(settled(session) and unchanged_but(task, session, lambda s: s["notes"]["notes"].append(made)))


async def new_note(hand: Hand, title: str | None, body: str) -> None:
    await hand.launch("Notes")
    while await hand.shows("button", "Delete"):  # a note is open: back to the list
        await hand.button("back")
    await notes.save_new_note(hand, title, body)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await new_note(Hand(session), task.metadata["title"], task.metadata["body"])


@cb.wrong_way
async def saves_without_a_title(task: cb.Task, session: cb.Session) -> None:
    await new_note(Hand(session), None, task.metadata["body"])


@cb.wrong_way
async def edits_an_existing_note(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await hand.launch("Notes")
    while await hand.shows("button", "Delete"):
        await hand.button("back")
    first = (await hand.texts("listitem", within=("list", "Notes")))[0]
    await hand.tap("listitem", first)
    await hand.fill("Title", task.metadata["title"])
    await hand.tap("textbox", "Note")
    await hand.key("ctrl", "a")
    await hand.type(task.metadata["body"])


@cb.wrong_way
async def oracle_twice(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await solve(task, session)
