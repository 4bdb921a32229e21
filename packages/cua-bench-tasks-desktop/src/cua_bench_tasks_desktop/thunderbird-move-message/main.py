"""thunderbird-move-message: move one message of the Inbox to another local folder in Thunderbird.

Local Folders hold the Inbox (4 to 7 seeded messages) and 2 to 3 more folders, each with 0 to 2
messages of its own. The task names a message by sender and subject and the folder to move it to.
The oracle clicks the message's row (found in the accessibility tree), opens its context menu and
picks Move To > Local Folders > the folder, then waits for the row to leave the list.

Thunderbird appends the moved message to the target folder's mbox and marks its Inbox copy expunged
(``X-Mozilla-Status`` 0x0008) until the Inbox is compacted. The evaluator reads every folder's mbox
with ``mailbox``: the Inbox shows the other messages (byte for byte the seeds', flags kept) and holds
the moved one only as expunged, if at all; the target shows its own messages and then the moved one
(its bytes, flags kept); every other folder is byte for byte as setup wrote it; and nothing else
under home changed but the files Thunderbird rewrites by itself (``_thunderbird.incidental``).
Wrong ways: ``copies_instead`` (Copy To: the message stays in the Inbox), ``moves_to_another_folder``
and ``moves_the_neighbour``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import files_since_setup, loaders
from cua_bench_tasks_desktop._thunderbird import (
    FOLDER_NAMES,
    MAIL_STORE_IS_THE_WORK,
    file_to,
    folder_file,
    folder_is,
    make_mail,
    open_thunderbird,
    profile_changes,
    subjects,
)

NAME = "thunderbird-move-message"
WAIVED = MAIL_STORE_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    count = rng.randint(4, 7)
    folders = rng.sample(FOLDER_NAMES, rng.randint(2, 3))
    held = {folder: rng.randint(0, 2) for folder in folders}
    names = subjects(rng, count + sum(held.values()))
    inbox = [make_mail(rng, s, flagged=rng.random() < 0.25, read=rng.random() < 0.5) for s in names[:count]]
    rest = iter(names[count:])
    others = {folder: [make_mail(rng, next(rest), read=True) for _ in range(n)] for folder, n in held.items()}
    target = rng.randrange(count - 1)
    mail = inbox[target]
    sender = mail["from"].split(" <")[0]
    folder = rng.choice(folders)
    return cb.Task(
        description=f"In Thunderbird, move the message '{mail['subject']}' from {sender} from the Inbox to the "
        f"local folder '{folder}' (Local Folders).",
        metadata={"inbox": inbox, "folders": others, "target": target, "folder": folder},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_thunderbird(task, session, {"Inbox": meta["inbox"], **meta["folders"]})


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    mail = meta["inbox"][meta["target"]]
    rest = [m for i, m in enumerate(meta["inbox"]) if i != meta["target"]]
    ok = await folder_is(task, session, after, "Inbox", rest, gone=[mail])
    target = meta["folder"]
    ok = await folder_is(task, session, after, target, [*meta["folders"][target], mail]) and ok
    found = profile_changes(before, after, [folder_file("Inbox"), folder_file(target)])
    for problem in found[:5]:
        task.explain(f"besides what the task asks, {problem}")
    return [1.0 if ok and not found else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await file_to(session, meta["inbox"][meta["target"]]["subject"], meta["folder"])


@cb.wrong_way
async def copies_instead(task: cb.Task, session: cb.Session) -> None:
    """Copy To the folder: the message is in the folder, and still in the Inbox."""
    meta = task.metadata
    await file_to(session, meta["inbox"][meta["target"]]["subject"], meta["folder"], copy=True)


@cb.wrong_way
async def moves_to_another_folder(task: cb.Task, session: cb.Session) -> None:
    """The message moved to one of the other folders."""
    meta = task.metadata
    other = next(f for f in meta["folders"] if f != meta["folder"])
    await file_to(session, meta["inbox"][meta["target"]]["subject"], other)


@cb.wrong_way
async def moves_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The message below the asked one moved to the folder."""
    meta = task.metadata
    await file_to(session, meta["inbox"][meta["target"] + 1]["subject"], meta["folder"])
