"""multi-mail-to-writer: copy the text of a message in Thunderbird (behind) to the end of a document open
in LibreOffice Writer (in front), one paragraph per line of the message, and save the document.

The Inbox holds 3 to 5 messages of 2 to 5 body lines each; the task names one by subject and sender.
A person selects the message, selects its text in the message pane, copies it and pastes it in Writer
(or types it). The oracle presses ctrl+end and Enter in Writer, types the lines with Enter between them
and saves (ctrl+s, ``_office.save``). With Writer open, Thunderbird's widgets did not reach the
accessibility reader here, so the oracle does not click through Thunderbird; it types the message's lines
from the task's metadata, as the other LibreOffice oracles type what they carry.

The evaluator reads the saved document in its name's format (``_multi.document_beside_mail``: odfpy or
python-docx): every paragraph as it was, then one body paragraph per line of the message, in order,
with no marks of their own, nothing else in the document; the mail store and every other file under home
unchanged but Thunderbird's own files (``_thunderbird.incidental``). A paste that keeps the message's
formatting (a different paragraph style or font marks) is not the plain paragraphs asked for.
Wrong ways: ``another_message`` (the next message's lines), ``first_line_missing`` and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, press, type_text
from cua_bench_tasks_desktop._multi import document_beside_mail, open_beside_mail
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._thunderbird import make_mail, subjects
from cua_bench_tasks_desktop._writer import document_bytes, seed_lines, writer_format

NAME = "multi-mail-to-writer"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    count = rng.randint(3, 5)
    mails = [make_mail(rng, subject, read=rng.random() < 0.5) for subject in subjects(rng, count)]
    target = rng.randrange(count)
    mail = mails[target]
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.odt', '.docx']))}"
    return cb.Task(
        description=f"Thunderbird (behind) has a message '{mail['subject']}' from {mail['from'].split(' <')[0]} in "
        f"its Inbox. Copy the text of that message to the end of the document ~/{path} open in LibreOffice Writer: "
        "each line of the message as a new plain paragraph after the document's last paragraph, in order, and no "
        "other change. Then save the document in its current format.",
        metadata={"path": path, "mails": mails, "target": target, "lines": seed_lines(rng, rng.randint(2, 4))},
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def body(meta: Meta, index: int | None = None) -> list[str]:
    return list(meta["mails"][meta["target"] if index is None else index]["body"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    data = document_bytes(meta["lines"], writer_format(meta["path"]))
    await open_beside_mail(task, session, {"Inbox": meta["mails"]}, "writer", meta["path"], data)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await document_beside_mail(task, session, [*meta["lines"], *body(meta)], meta["path"])]


async def _typed(task: cb.Task, session: cb.Session, lines: list[str], *, saved: bool = True) -> None:
    await press(session, "ctrl+end")
    for line in lines:
        await press(session, "enter")
        await type_text(session, line)
    if saved:
        await save(session, task.metadata["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _typed(task, session, body(task.metadata))


@cb.wrong_way
async def another_message(task: cb.Task, session: cb.Session) -> None:
    """The lines of the next message in the Inbox (the first, for the last)."""
    meta = task.metadata
    await _typed(task, session, body(meta, (meta["target"] + 1) % len(meta["mails"])))


@cb.wrong_way
async def first_line_missing(task: cb.Task, session: cb.Session) -> None:
    """Every line of the message but the first."""
    await _typed(task, session, body(task.metadata)[1:])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The lines typed, never saved."""
    await _typed(task, session, body(task.metadata), saved=False)
