"""thunderbird-save-attachment: save one message's attachment from Thunderbird into a folder under home.

The Inbox holds 4 to 7 seeded messages; 2 to 3 of them carry a text attachment (a CSV or a note),
each under a different file name. The task names a message by sender and subject and asks for its
attachment to be saved into a folder under home, under its own name. The oracle clicks the
message's row, waits for the attachment to show below the message, opens its context menu, picks
"Save As…" and saves under ``~/FOLDER/NAME`` in the file dialog.

The evaluator wants ``~/FOLDER/NAME`` to be a plain file with one link holding the attachment's bytes
exactly (as decoded from the message), and nothing else under home changed but the files Thunderbird
rewrites by itself (``_thunderbird.incidental``): the mail store among what must not change.
Wrong ways: ``saves_another_attachment`` (another message's attachment, under its own name),
``saves_into_home`` (the right attachment, in the home folder) and ``saves_under_a_misspelt_name``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, files_since_setup, loaders, output_bytes
from cua_bench_tasks_desktop._thunderbird import (
    attachment_text,
    make_mail,
    open_thunderbird,
    profile_changes,
    save_attachment,
    subjects,
)

NAME = "thunderbird-save-attachment"
WAIVED = OUTPUT_IS_THE_WORK
FOLDERS = ("Documents", "Downloads", "invoices", "shared", "reports", "inbox-files")


def build(rng: random.Random) -> cb.Task:
    count = rng.randint(4, 7)
    names = subjects(rng, count)
    with_files = sorted(rng.sample(range(count), rng.randint(2, 3)))
    files = iter(attachment_text(rng, with_files.__len__()))
    mails = [
        make_mail(rng, subject, attachment=next(files) if index in with_files else None, read=rng.random() < 0.5)
        for index, subject in enumerate(names)
    ]
    target = rng.choice(with_files)
    mail = mails[target]
    folder = rng.choice(FOLDERS)
    sender = mail["from"].split(" <")[0]
    return cb.Task(
        description=f"In Thunderbird, save the attachment of the message '{mail['subject']}' from {sender} "
        f"(Inbox, Local Folders) into the folder ~/{folder}, keeping the attachment's file name.",
        metadata={"mails": mails, "target": target, "folder": folder,
                  "path": f"{folder}/{mail['attachment'][0]}"},
        max_steps=12,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await session.run_command(f"mkdir -p {meta['folder']}", timeout=20, check=True)
    await open_thunderbird(task, session, {"Inbox": meta["mails"]})


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    want = meta["mails"][meta["target"]]["attachment"][1].encode()
    data = await output_bytes(session, after, meta["path"])
    if data != want:
        task.explain(
            f"{meta['path']}: {'missing, or not a plain file with one link' if data is None else 'not the attachment'}"
        )
    found = profile_changes(before, after, [meta["path"]])
    for problem in found[:5]:
        task.explain(f"besides what the task asks, {problem}")
    return [1.0 if data == want and not found else 0.0]


async def _save(task: cb.Task, session: cb.Session, index: int, path: str) -> None:
    await save_attachment(session, task.metadata["mails"][index], path)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _save(task, session, meta["target"], meta["path"])


@cb.wrong_way
async def saves_another_attachment(task: cb.Task, session: cb.Session) -> None:
    """Another message's attachment saved into the folder, under its own name."""
    meta = task.metadata
    other = next(i for i, m in enumerate(meta["mails"]) if m["attachment"] and i != meta["target"])
    await _save(task, session, other, f"{meta['folder']}/{meta['mails'][other]['attachment'][0]}")


@cb.wrong_way
async def saves_into_home(task: cb.Task, session: cb.Session) -> None:
    """The right attachment, saved into the home folder instead."""
    meta = task.metadata
    await _save(task, session, meta["target"], meta["path"].rsplit("/", 1)[1])


@cb.wrong_way
async def saves_under_a_misspelt_name(task: cb.Task, session: cb.Session) -> None:
    """The right attachment in the right folder, its name's second letter left out."""
    meta = task.metadata
    folder, name = meta["path"].rsplit("/", 1)
    await _save(task, session, meta["target"], f"{folder}/{name[:1]}{name[2:]}")
