"""messages-send: in Messages, send a given text in an existing conversation.

Easy: four conversations, the phone at home. Medium: eight, Messages already open on another
conversation. Hard: thirty, the conversation below the list's first screen (scroll), Notes open in front.

The evaluator checks the whole state of the phone's apps: the conversations are setup's with only the
new message from me at the end of that person's, text exact, and nothing else changed (no other
conversation, no draft left typed, no other app); no dialog or overlay left open. Chance 0 (the text is
typed).

Wrong ways: ``sends_to_the_neighbour`` (the conversation next in the list instead), ``near_miss_text``
(the text without its last character) and ``oracle_twice`` (the message sent twice).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import messages, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "messages-send"
SHAPE = {"easy": 4, "medium": 8, "hard": 30}  # conversations on the phone
SCREEN = 24  # rows of the conversation list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = messages.sample(rng, SHAPE[difficulty])
    shown = list(reversed(data["threads"]))  # the list: the most recent first
    apps, state = ["messages"], {"messages": data}
    opened: tuple[str, str | None] | None = None
    name = rng.choice(shown[SCREEN:] if difficulty == "hard" else shown)
    text = messages.line(rng)
    while text == data["threads"][name][-1]["text"]:
        text = messages.line(rng)
    if difficulty == "medium":
        opened = ("messages", rng.choice([n for n in shown if n != name]))
    if difficulty == "hard":
        apps, state = ["messages", "notes"], {"messages": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    description = rng.choice([f'In Messages, send {name} the message "{text}".',
                              f'Text {name} "{text}" in your existing conversation with them (Messages).',
                              f'Open your conversation with {name} in Messages and send them "{text}".'])  # fmt: skip
    description += " Type it exactly, and send nothing else."
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 12, "medium": 14, "hard": 22}[difficulty], name=name, text=text)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        state["messages"]["threads"][meta["name"]].append(messages.message(messages.ME, meta["text"]))

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def send(hand: Hand, name: str, text: str) -> None:
    await messages.open_thread(hand, name)
    await messages.send_text(hand, text)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await send(Hand(session), task.metadata["name"], task.metadata["text"])


@cb.wrong_way
async def sends_to_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await send(Hand(session), messages.neighbour(task), task.metadata["text"])


@cb.wrong_way
async def near_miss_text(task: cb.Task, session: cb.Session) -> None:
    await send(Hand(session), task.metadata["name"], task.metadata["text"][:-1])


@cb.wrong_way
async def oracle_twice(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await solve(task, session)
