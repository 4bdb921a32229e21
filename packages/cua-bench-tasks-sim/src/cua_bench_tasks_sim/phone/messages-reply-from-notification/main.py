"""messages-reply-from-notification: a message has just come in; open its notification and reply.

Easy: four conversations, one notification, the phone at home. Medium: eight, two notifications (the
other from someone else), Messages open on a third conversation. Hard: twelve, three notifications,
Notes open in front.

The evaluator checks the whole state of the phone's apps: the conversations are setup's with only the
reply from me at the end of the sender's (after their new message), text exact, and nothing else
changed (no other conversation, no draft left typed, no other app); that sender's notification was
opened (the platform marks it when it is tapped in the shade: an agent cannot set it otherwise); no
dialog or overlay left open. Chance 0 (the reply is typed).

Wrong ways: ``replies_from_the_app`` (the right reply, but through Messages' list, the notification left
unopened), ``notification_then_near_miss_reply`` (the reply without its last character) and
``notification_then_replies_to_the_neighbour`` (the notification opened, the reply sent in the
conversation next in the list).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import messages, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "messages-reply-from-notification"
SHAPE = {"easy": (4, 1), "medium": (8, 2), "hard": (12, 3)}  # conversations, notifications


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, posted = SHAPE[difficulty]
    data = messages.sample(rng, count)
    threads = data["threads"]
    senders = rng.sample(list(threads), posted)
    notifications = []
    for sender in senders:  # each sender's message arrives (the last one posted is the newest)
        text = messages.line(rng)
        threads[sender] = [*threads.pop(sender), messages.message(sender, text)]
        notifications.append(("messages", sender, text, sender))
    name = rng.choice(senders)
    incoming = threads[name][-1]["text"]
    reply = messages.line(rng)
    while reply == incoming:
        reply = messages.line(rng)
    apps, state = ["messages"], {"messages": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("messages", rng.choice([n for n in threads if n not in senders]))
    if difficulty == "hard":
        apps, state = ["messages", "notes"], {"messages": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    ask = rng.choice([f'{name} just texted you ("{incoming}"). Open their notification and reply "{reply}".',
                      f'Reply "{reply}" to the message from {name}, opening it from its notification.',
                      f'Open {name}\'s new message from its notification and answer "{reply}".'])  # fmt: skip
    description = f"{ask} Type the reply exactly and send nothing else."
    return phone_task(description, apps=apps, data=state, opened=opened, notifications=notifications, chance=0.0,
                      max_steps={"easy": 12, "medium": 14, "hard": 16}[difficulty], name=name, reply=reply)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        state["messages"]["threads"][meta["name"]].append(messages.message(messages.ME, meta["reply"]))

    followed = any(n.opened for n in phone(session).notifications if n.app == "messages" and n.target == meta["name"])
    return score(followed and settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def from_notification(hand: Hand, name: str) -> None:
    """The sender's notification tapped in the shade: their conversation opens."""
    await hand.open_shade()
    await hand.tap("button", name, within=("window", "Notifications"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_notification(hand, task.metadata["name"])
    await messages.send_text(hand, task.metadata["reply"])


@cb.wrong_way
async def replies_from_the_app(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await messages.to_list(hand)
    await hand.tap("listitem", task.metadata["name"], within=messages.LIST)
    await messages.send_text(hand, task.metadata["reply"])


@cb.wrong_way
async def notification_then_near_miss_reply(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_notification(hand, task.metadata["name"])
    await messages.send_text(hand, task.metadata["reply"][:-1])


@cb.wrong_way
async def notification_then_replies_to_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await from_notification(hand, task.metadata["name"])
    await hand.button("back")
    await hand.tap("listitem", messages.neighbour(task), within=messages.LIST)
    await messages.send_text(hand, task.metadata["reply"])
