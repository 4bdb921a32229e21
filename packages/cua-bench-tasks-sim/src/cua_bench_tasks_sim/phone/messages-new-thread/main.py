"""messages-new-thread: in Messages, text someone you have no conversation with yet.

Easy: four conversations, the phone at home. Medium: eight, Messages already open on a conversation.
Hard: fourteen, one of them with someone who shares the new person's first name, Notes open in front.

The evaluator checks the whole state of the phone's apps: the conversations are setup's plus one with
that person (their name exact) holding just the message from me, text exact, and nothing else changed
(no other conversation, no draft or form left typed, no other app); no dialog or overlay left open.
Chance 0 (the name and text are typed).

Wrong ways: ``sends_in_an_existing_conversation`` (the text sent to the person at the top of the list,
or, when hard, to the namesake), ``near_miss_name`` (the name in lower case: a conversation with
"ada khan") and ``oracle_twice`` (the message sent twice).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import contacts, messages, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_bench_tasks_sim._phone.words import LAST_NAMES

FAMILY = "messages-new-thread"
SHAPE = {"easy": 4, "medium": 8, "hard": 14}  # conversations on the phone


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = messages.sample(rng, SHAPE[difficulty])
    threads = data["threads"]
    apps, state = ["messages"], {"messages": data}
    opened: tuple[str, str | None] | None = None
    namesake = ""
    if difficulty == "hard":
        namesake = rng.choice(list(threads))
        first = namesake.split(" ")[0]
        name = rng.choice([f"{first} {last}" for last in LAST_NAMES if f"{first} {last}" not in threads])
        apps, state = ["messages", "notes"], {"messages": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    else:
        name = next(n for n in contacts.names(rng, len(threads) + 1) if n not in threads)
    if difficulty == "medium":
        opened = ("messages", rng.choice(list(threads)))
    text = messages.line(rng)
    ask = rng.choice([f'In Messages, send {name} the message "{text}".',
                      f'Text "{text}" to {name} using Messages.',
                      f'Start a conversation with {name} in Messages by sending "{text}".'])  # fmt: skip
    description = (f"{ask} You have no conversation with {name} yet: use New message and type the name exactly "
                   "as written. Type the text exactly and send nothing else.")  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 20, "medium": 22, "hard": 24}[difficulty], name=name, text=text,
                      namesake=namesake)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        state["messages"]["threads"][meta["name"]] = [messages.message(messages.ME, meta["text"])]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def new_message(hand: Hand, name: str, text: str) -> None:
    await messages.to_list(hand)
    await hand.tap("button", "New message")
    await hand.fill("To", name)
    await messages.send_text(hand, text)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await new_message(Hand(session), task.metadata["name"], task.metadata["text"])


@cb.wrong_way
async def sends_in_an_existing_conversation(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await messages.to_list(hand)
    other = task.metadata["namesake"] or (await hand.texts("listitem", within=messages.LIST))[0]
    await hand.tap("listitem", other, within=messages.LIST)
    await messages.send_text(hand, task.metadata["text"])


@cb.wrong_way
async def near_miss_name(task: cb.Task, session: cb.Session) -> None:
    await new_message(Hand(session), task.metadata["name"].lower(), task.metadata["text"])


@cb.wrong_way
async def oracle_twice(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await solve(task, session)
