"""notes-append-line: in Notes, add a given line at the end of a named note.

Easy: three notes, the phone at home. Medium: six, Notes open on another note. Hard: twelve, Photos on
the launcher too and open in front, the note's text three lines long.

The evaluator checks the whole state of the phone's apps: the notes are setup's with only the named
note's text changed, to its old text, a line break and the new line exactly (its title as it was), and
nothing else changed; no dialog or overlay left open. Chance 0 (the line is typed).

Wrong ways: ``the_neighbour`` (the line added to the note after it instead), ``on_the_same_line``
(typed straight after the last character, no line break), ``at_the_top`` (the line added before the
note's first line).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import gallery, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_bench_tasks_sim._phone.words import sentence

FAMILY = "notes-append-line"
SHAPE = {"easy": 3, "medium": 6, "hard": 12}  # notes there


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = notes.sample(rng, SHAPE[difficulty])
    target = rng.choice(data["notes"])
    if difficulty == "hard":
        target["body"] = "\n".join(sentence(rng) for _ in range(3))
    line = sentence(rng)
    while line in target["body"].split("\n"):
        line = sentence(rng)
    apps, state = ["notes"], {"notes": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("notes", rng.choice([n for n in data["notes"] if n is not target])["title"])
    elif difficulty == "hard":
        apps, state = ["notes", "gallery"], {"notes": data, "gallery": gallery.sample(rng, 20)}
        opened = ("gallery", None)
    title = target["title"]
    description = rng.choice([f'In Notes, add the line "{line}" at the end of the note "{title}". Change nothing else.',
                              f'Append a new last line, "{line}", to the note "{title}" in Notes. Keep its other '
                              "lines as they are and change nothing else."])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 12, "medium": 14, "hard": 16}[difficulty], title=title, line=line)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    index = notes.note_index(task, meta["title"])

    def change(state: dict[str, Any]) -> None:
        note = state["notes"]["notes"][index]
        note["body"] = f"{note['body']}\n{meta['line']}"

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def append(hand: Hand, title: str, text: str, *, top: bool = False) -> None:
    """``text`` typed at the end (the start, with ``top``) of the note ``title``."""
    await notes.open_note(hand, title)
    await notes.type_into(hand, text, top=top)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await append(Hand(session), task.metadata["title"], "\n" + task.metadata["line"])


@cb.wrong_way
async def the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await append(Hand(session), notes.neighbour(task), "\n" + task.metadata["line"])


@cb.wrong_way
async def on_the_same_line(task: cb.Task, session: cb.Session) -> None:
    await append(Hand(session), task.metadata["title"], " " + task.metadata["line"])


@cb.wrong_way
async def at_the_top(task: cb.Task, session: cb.Session) -> None:
    await append(Hand(session), task.metadata["title"], task.metadata["line"] + "\n", top=True)
