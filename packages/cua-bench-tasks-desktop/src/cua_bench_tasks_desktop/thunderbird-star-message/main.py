"""thunderbird-star-message: star (or unstar) one message of the Inbox in Thunderbird.

The Inbox holds 4 to 7 seeded messages, some starred already. The task names one message by its
sender and subject and asks for it to be starred, or, where it is starred, for its star to be
removed. The oracle clicks the message's row in the message list (found in the accessibility
tree), waits for it to be selected and presses ``s`` (Message > Star), then waits for the row to
show the new state.

Thunderbird writes a flag change into the message's ``X-Mozilla-Status`` header in the Inbox's
mbox at once (the seeds carry the header, as its own mail does). The evaluator reads the Inbox
with ``mailbox``: the same messages in the same order, each byte for byte the seed's (its
``X-Mozilla-*`` headers aside), the asked message with the starred flag set or cleared and every
other flag as it was, every other message's flags as they were; and nothing else under home
changed but the files Thunderbird rewrites by itself (``_thunderbird.incidental``).
Wrong ways: ``stars_the_neighbour`` (the message below it), ``marks_read_instead`` (``m``: read,
not starred) and ``stars_two`` (the asked one and the next).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import act, key, loaders
from cua_bench_tasks_desktop._thunderbird import (
    FLAGGED,
    MAIL_STORE_IS_THE_WORK,
    inbox_is,
    make_mail,
    open_thunderbird,
    row_shows,
    select_message,
    subjects,
)

NAME = "thunderbird-star-message"
WAIVED = MAIL_STORE_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    count = rng.randint(4, 7)
    names = subjects(rng, count)
    target = rng.randrange(count - 1)  # a neighbour below it for the wrong way
    unstar = rng.random() < 0.3
    mails = [make_mail(rng, subject, flagged=rng.random() < 0.25, read=rng.random() < 0.5) for subject in names]
    mails[target]["flagged"] = unstar
    mail = mails[target]
    sender = mail["from"].split(" <")[0]
    verb = "Remove the star from" if unstar else "Star"
    return cb.Task(
        description=f"{verb} the message '{mail['subject']}' from {sender} in Thunderbird's Inbox (Local Folders).",
        metadata={"mails": mails, "target": target, "unstar": unstar},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_thunderbird(task, session, {"Inbox": task.metadata["mails"]})


def flags_after(meta: Meta, toggled: list[int], bit: int = FLAGGED) -> list[dict[str, bool]]:
    """Each message's read and starred flags once ``toggled`` messages had ``bit`` toggled."""
    out = []
    for index, mail in enumerate(meta["mails"]):
        read, flagged = bool(mail["read"]), bool(mail["flagged"])
        if index in toggled:
            read, flagged = (not read, flagged) if bit != FLAGGED else (read, not flagged)
        out.append({"read": read, "flagged": flagged})
    return out


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [1.0 if await inbox_is(task, session, meta["mails"], flags_after(meta, [meta["target"]])) else 0.0]


async def _toggle(task: cb.Task, session: cb.Session, index: int, combo: str = "s") -> None:
    """The message's row clicked, ``combo`` pressed, and the wait for the row to show the change."""
    mail = task.metadata["mails"][index]
    await select_message(session, mail["subject"])
    await act(session, key(combo))
    mark, now = ("Starred", not mail["flagged"]) if combo == "s" else ("Unread", bool(mail["read"]))
    await row_shows(session, mail["subject"], mark, now)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _toggle(task, session, task.metadata["target"])


@cb.wrong_way
async def stars_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The star toggled on the message below the asked one."""
    await _toggle(task, session, task.metadata["target"] + 1)


@cb.wrong_way
async def marks_read_instead(task: cb.Task, session: cb.Session) -> None:
    """The asked message's read state toggled (``m``) instead of its star."""
    await _toggle(task, session, task.metadata["target"], "m")


@cb.wrong_way
async def stars_two(task: cb.Task, session: cb.Session) -> None:
    """The asked message's star toggled, and the next one's too."""
    await _toggle(task, session, task.metadata["target"])
    await _toggle(task, session, task.metadata["target"] + 1)
