"""multi-mail-to-calc: carry the CSV attachment of a message in Thunderbird (behind) into a workbook open
in LibreOffice Calc (in front), add a total row with a SUM formula, and save the workbook.

The Inbox holds 3 to 5 messages; two carry a CSV attachment of ``item,amount`` rows (amounts in cents).
The task names one by subject and sender. A person opens the message, opens or saves the attachment
(Thunderbird's Save As, or Open with Calc) and types or pastes its rows into the workbook.
The oracle types the attachment's rows from A2 (item, Tab, amount, Enter), then ``total`` and
``=SUM(B2:Bn)`` on the row below them, and saves (ctrl+s). With Calc open, Thunderbird's widgets did not
reach the accessibility reader here, so the oracle does not click through Thunderbird; it types what
the attachment holds, from the task's metadata, as the other LibreOffice oracles type what they carry.

The evaluator reads the saved workbook in its name's format with types (``_multi.book_beside_mail``):
the header, the attachment's rows in its order (the item as text, the amount as a number), then
``total`` and a SUM formula over exactly the amounts with their sum, nothing else on the sheet; the mail
store and every other file under home unchanged but Thunderbird's own files (``_thunderbird.incidental``):
the instruction says to add no file under home (an attachment opened from Thunderbird goes to a temporary
folder outside it; one saved is to go under /tmp), so a copy of the attachment left under home is a change.
An agent could skip the workbook's source only by reading the attachment some other way (there is no
terminal on the desktop); the rows are nowhere else under home.
Wrong ways: ``the_other_attachment`` (the other message's CSV), ``total_typed_as_a_number`` (the sum's
value typed, not a formula), ``amounts_as_text`` (each amount after an apostrophe) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import fmt, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._multi import amounts, as_csv, book_beside_mail, entries, open_beside_mail, with_total
from cua_bench_tasks_desktop._office import book_bytes, save
from cua_bench_tasks_desktop._sheets import SHEET
from cua_bench_tasks_desktop._thunderbird import make_mail, subjects

NAME = "multi-mail-to-calc"
WAIVED = OUTPUT_IS_THE_WORK
HEADER = ["item", "amount"]
NAMES = ("expenses", "invoice", "orders", "receipts", "costs")


def build(rng: random.Random) -> cb.Task:
    count = rng.randint(3, 5)
    names = subjects(rng, count)
    with_files = rng.sample(range(count), 2)
    files = rng.sample(NAMES, 2)
    tables = [amounts(rng), amounts(rng)]
    attachments = {
        index: (f"{name}_{rng.randint(1, 12):02d}.csv", as_csv(HEADER, table))
        for index, name, table in zip(with_files, files, tables, strict=True)
    }
    mails = [
        make_mail(rng, subject, attachment=attachments.get(index), read=rng.random() < 0.5)
        for index, subject in enumerate(names)
    ]
    target = with_files[0]
    mail = mails[target]
    path = f"{rng.choice(WORDS)}/{rng.choice(['totals', 'book', 'sheet'])}_{rng.randint(1, 99)}"
    path += rng.choice([".ods", ".xlsx"])
    return cb.Task(
        description=f"Thunderbird (behind) has a message '{mail['subject']}' from {mail['from'].split(' <')[0]} "
        f"in its Inbox with a CSV attachment of items and amounts. In the workbook ~/{path} open in LibreOffice "
        "Calc, enter the attachment's rows under the header (item in column A, amount in column B as a number, "
        "in the attachment's order), then on the row right below them put the text 'total' in column A and a SUM "
        "formula adding up the amounts in column B. Save the workbook in its current format. Add no other file under "
        "your home folder (open the attachment from Thunderbird, or save it under /tmp if you save it).",
        metadata={
            "path": path,
            "mails": mails,
            "target": target,
            "other": with_files[1],
            "tables": {str(index): table for index, table in zip(with_files, tables, strict=True)},
        },
        max_steps=30,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def rows_of(meta: Meta, index: int | None = None) -> list[list[str | float]]:
    return [list(row) for row in meta["tables"][str(meta["target"] if index is None else index)]]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    data = book_bytes({SHEET: [HEADER]}, fmt(meta["path"]))
    await open_beside_mail(task, session, {"Inbox": meta["mails"]}, "calc", meta["path"], data)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await book_beside_mail(task, session, {SHEET: with_total(HEADER, rows_of(meta))}, meta["path"])]


async def _typed(task: cb.Task, session: cb.Session, text: str, *, saved: bool = True) -> None:
    await type_entries(session, [(1, 0, text)])
    if saved:
        await save(session, task.metadata["path"])


def _total(rows: list[list[str | float]]) -> str:
    return f"total\t=SUM(B2:B{len(rows) + 1})"


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    rows = rows_of(task.metadata)
    await _typed(task, session, entries(rows, total=_total(rows)))


@cb.wrong_way
async def the_other_attachment(task: cb.Task, session: cb.Session) -> None:
    """The other message's CSV carried, with its total."""
    rows = rows_of(task.metadata, task.metadata["other"])
    await _typed(task, session, entries(rows, total=_total(rows)))


@cb.wrong_way
async def total_typed_as_a_number(task: cb.Task, session: cb.Session) -> None:
    """The rows, and the sum worked out and typed as a number instead of a formula."""
    rows = rows_of(task.metadata)
    await _typed(task, session, entries(rows, total=f"total\t{sum(float(row[1]) for row in rows):.2f}"))


@cb.wrong_way
async def amounts_as_text(task: cb.Task, session: cb.Session) -> None:
    """Each amount typed after an apostrophe (text), the total formula below them."""
    rows = rows_of(task.metadata)
    await _typed(task, session, entries(rows, quote="'", total=_total(rows)))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The rows and the total typed, never saved."""
    rows = rows_of(task.metadata)
    await _typed(task, session, entries(rows, total=_total(rows)), saved=False)
