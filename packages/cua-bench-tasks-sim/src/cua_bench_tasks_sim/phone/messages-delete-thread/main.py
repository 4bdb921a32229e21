"""messages-delete-thread: in Messages, delete your conversation with someone.

Easy: four conversations, the phone at home. Medium: eight, Messages already open on another
conversation. Hard: thirty, the conversation below the list's first screen (scroll), Notes open in front.

The evaluator checks the whole state of the phone's apps: the conversations are setup's without that
person's and nothing else changed (no other conversation, no draft left typed, no other app); no dialog
or overlay left open. Chance 0.005: opening Messages, the one row among up to eight, the toolbar's Delete
conversation and the dialog's Delete, by random taps (0.001 when hard: the row is off the first screen).

Wrong ways: ``deletes_the_neighbour`` (the conversation next in the list instead),
``oracle_then_the_neighbour`` (both) and ``oracle_leaving_a_draft`` (the right one deleted after typing a
message into the next one and leaving it unsent).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import messages, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "messages-delete-thread"
SHAPE = {"easy": 4, "medium": 8, "hard": 30}  # conversations on the phone
SCREEN = 24  # rows of the conversation list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = messages.sample(rng, SHAPE[difficulty])
    shown = list(reversed(data["threads"]))  # the list: the most recent first
    apps, state = ["messages"], {"messages": data}
    opened: tuple[str, str | None] | None = None
    name = rng.choice(shown[SCREEN:] if difficulty == "hard" else shown)
    if difficulty == "medium":
        opened = ("messages", rng.choice([n for n in shown if n != name]))
    if difficulty == "hard":
        apps, state = ["messages", "notes"], {"messages": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    description = rng.choice([f"In Messages, delete your conversation with {name}. Keep the others.",
                              f"Delete the whole conversation with {name} from Messages; leave the rest alone.",
                              f"Remove the {name} conversation in Messages."])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened,
                      chance={"easy": 0.005, "medium": 0.005, "hard": 0.001}[difficulty],
                      max_steps={"easy": 12, "medium": 14, "hard": 22}[difficulty], name=name)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    name = task.metadata["name"]

    def change(state: dict[str, Any]) -> None:
        del state["messages"]["threads"][name]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def delete(hand: Hand, name: str) -> None:
    await messages.open_thread(hand, name)
    await hand.tap("button", "Delete conversation")
    await hand.tap("button", "Delete", within=("dialog", "Messages"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), task.metadata["name"])


@cb.wrong_way
async def deletes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), messages.neighbour(task))


@cb.wrong_way
async def oracle_then_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await deletes_the_neighbour(task, session)


@cb.wrong_way
async def oracle_leaving_a_draft(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await messages.open_thread(hand, messages.neighbour(task))
    await hand.fill("Message", "bye")
    await solve(task, session)
