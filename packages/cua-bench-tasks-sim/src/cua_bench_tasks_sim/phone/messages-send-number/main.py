"""messages-send-number: look a person's number up in Contacts and text it to someone in Messages.

Easy: six contacts, four conversations (the recipient's among them), the phone at home. Medium:
fourteen contacts, eight conversations, Contacts already open on someone else. Hard: thirty-two
contacts, the person below the list's first screen (scroll, or search), no conversation with the
recipient yet (New message), Notes open in front.

The evaluator checks the whole state of the phone's apps: the contacts are as setup left them, and the
conversations are setup's with only one new message from me to the recipient (their conversation, or a
new one with their exact name when hard), its text exactly the person's number as Contacts holds it,
and nothing else changed (no draft or search left typed, no other app); no dialog or overlay left open.
Chance 0 (the number is typed).

Wrong ways: ``sends_the_neighbours_number`` (the number of the person next in Contacts' list),
``sends_it_to_someone_else`` (the right number, to the conversation at the top of the list) and
``near_miss_number`` (the number with its last digit off by one).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import contacts, messages, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "messages-send-number"
SHAPE = {"easy": (6, 4), "medium": (14, 8), "hard": (32, 8)}  # contacts, conversations
SCREEN = 23  # rows of the contact list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, talks = SHAPE[difficulty]
    book = contacts.sample(rng, count)
    people = sorted(book["contacts"], key=contacts.sort_key)
    target = rng.choice(people[SCREEN:] if difficulty == "hard" else people)
    chats = messages.sample(rng, talks + 1)
    threads = chats["threads"]
    for name in [n for n in threads if n == target["name"]]:  # not to the person whose number it is
        del threads[name]
    recipient = rng.choice(list(threads))
    if difficulty == "hard":
        del threads[recipient]
    while len(threads) > talks:
        del threads[next(n for n in threads if n != recipient)]
    apps, state = ["contacts", "messages"], {"contacts": book, "messages": chats}
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("contacts", rng.choice([p for p in people if p is not target])["name"])
    if difficulty == "hard":
        apps, state = ["contacts", "messages", "notes"], {**state, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    who = target["name"]
    ask = rng.choice([f"Text {recipient} the phone number of {who}, which is saved in Contacts.",
                      f"{recipient} asked for {who}'s number: look it up in Contacts and text it to {recipient}.",
                      f"Send {who}'s phone number (from Contacts) to {recipient} in Messages."])  # fmt: skip
    new = (
        f" You have no conversation with {recipient} yet: start one, typing the name exactly."
        if difficulty == "hard"
        else ""
    )
    description = (f"{ask}{new} The message must be just the number, exactly as Contacts shows it; change nothing "
                   "else.")  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 20, "medium": 22, "hard": 30}[difficulty], person=who,
                      number=target["phone"], recipient=recipient)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        thread = state["messages"]["threads"].setdefault(meta["recipient"], [])
        thread.append(messages.message(messages.ME, meta["number"]))

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def look_up(hand: Hand, name: str) -> str:
    """The person's number, read off their screen in Contacts."""
    await contacts.open_contact(hand, name)
    number = str(await hand.value("textbox", "Phone"))
    await hand.button("back")
    return number


async def send(hand: Hand, recipient: str, text: str) -> None:
    """``text`` to ``recipient``: in their conversation if the list has one, else a new message."""
    await messages.to_list(hand)
    if recipient in await hand.texts("listitem", within=messages.LIST):
        await hand.tap("listitem", recipient, within=messages.LIST)
    else:
        await hand.tap("button", "New message")
        await hand.fill("To", recipient)
    await messages.send_text(hand, text)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await send(hand, task.metadata["recipient"], await look_up(hand, task.metadata["person"]))


@cb.wrong_way
async def sends_the_neighbours_number(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await send(hand, task.metadata["recipient"], await look_up(hand, contacts.neighbour(task, "person")))


@cb.wrong_way
async def sends_it_to_someone_else(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    number = await look_up(hand, task.metadata["person"])
    await messages.to_list(hand)
    other = next(n for n in await hand.texts("listitem", within=messages.LIST) if n != task.metadata["recipient"])
    await send(hand, other, number)


@cb.wrong_way
async def near_miss_number(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    number = await look_up(hand, task.metadata["person"])
    await send(hand, task.metadata["recipient"], contacts.near_miss(number))
