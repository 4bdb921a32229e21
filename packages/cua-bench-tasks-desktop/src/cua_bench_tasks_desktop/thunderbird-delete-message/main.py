"""thunderbird-delete-message: delete one message of the Inbox in Thunderbird (it goes to the Trash).

The Inbox holds 4 to 7 seeded messages. The task names one by sender and subject and asks for it to
be deleted. The oracle clicks its row in the message list (found in the accessibility tree), waits
for it to be selected and presses Delete, then waits for the Trash's mbox to hold it.

Thunderbird moves a deleted message to the Local Folders' Trash: it appends it to the Trash's mbox
and marks its Inbox copy expunged until the Inbox is compacted. The evaluator reads both with
``mailbox``: the Inbox shows the other messages (byte for byte the seeds', flags kept) and holds the
deleted one only as expunged, if at all; the Trash shows the deleted message and nothing else (marked
read, as Thunderbird marks what it moves to the Trash, its star kept); and
nothing else under home changed but the files Thunderbird rewrites by itself
(``_thunderbird.incidental``).
Wrong ways: ``deletes_the_neighbour``, ``deletes_two`` (the asked one and the next) and
``deletes_for_good`` (shift+Delete, confirmed: the message is expunged, not in the Trash).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import act, files_since_setup, key, loaders, no_window, wait_for, window
from cua_bench_tasks_desktop._thunderbird import (
    MAIL_STORE_IS_THE_WORK,
    find_row,
    folder_file,
    folder_is,
    make_mail,
    open_thunderbird,
    profile_changes,
    select_message,
    subjects,
)

NAME = "thunderbird-delete-message"
WAIVED = MAIL_STORE_IS_THE_WORK
TRASH = "Trash"


def build(rng: random.Random) -> cb.Task:
    count = rng.randint(4, 7)
    names = subjects(rng, count)
    mails = [make_mail(rng, s, flagged=rng.random() < 0.2, read=rng.random() < 0.5) for s in names]
    target = rng.randrange(count - 1)
    mail = mails[target]
    sender = mail["from"].split(" <")[0]
    return cb.Task(
        description=f"In Thunderbird, delete the message '{mail['subject']}' from {sender} from the Inbox "
        "(Local Folders); it goes to the Trash.",
        metadata={"mails": mails, "target": target},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_thunderbird(task, session, {"Inbox": task.metadata["mails"], TRASH: []})


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    mail = meta["mails"][meta["target"]]
    rest = [m for i, m in enumerate(meta["mails"]) if i != meta["target"]]
    ok = await folder_is(task, session, after, "Inbox", rest, gone=[mail])
    # Thunderbird marks a message read as it moves it to the Trash: its star is kept.
    ok = await folder_is(task, session, after, TRASH, [mail], [{"read": True, "flagged": bool(mail["flagged"])}]) and ok
    found = profile_changes(before, after, [folder_file("Inbox"), folder_file(TRASH)])
    for problem in found[:5]:
        task.explain(f"besides what the task asks, {problem}")
    return [1.0 if ok and not found else 0.0]


async def _press_on(task: cb.Task, session: cb.Session, index: int, combo: str = "Delete") -> None:
    """The message's row clicked, ``combo`` pressed (shift+Delete's question answered Delete), and the wait
    for the row to leave the list."""
    subject = task.metadata["mails"][index]["subject"]
    await select_message(session, subject)
    await act(session, key(combo))
    if combo == "shift+Delete":
        await window(session, "Confirm Deletion")
        await act(session, key("Return"))  # the focused Delete
        await no_window(session, "Confirm Deletion")

    async def gone() -> bool:
        return await find_row(session, subject) is None

    await wait_for(gone, f"{subject!r} to leave the message list")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _press_on(task, session, task.metadata["target"])


@cb.wrong_way
async def deletes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The message below the asked one deleted instead."""
    await _press_on(task, session, task.metadata["target"] + 1)


@cb.wrong_way
async def deletes_two(task: cb.Task, session: cb.Session) -> None:
    """The asked message deleted, and the next one too."""
    await _press_on(task, session, task.metadata["target"])
    await _press_on(task, session, task.metadata["target"] + 1)


@cb.wrong_way
async def deletes_for_good(task: cb.Task, session: cb.Session) -> None:
    """The asked message deleted for good (shift+Delete, confirmed): gone from the Inbox, not in the Trash."""
    await _press_on(task, session, task.metadata["target"], "shift+Delete")
