"""What several multi-app tasks share: tables of items carried from one app into a workbook, a slide or a
document, and scoring where Thunderbird runs beside LibreOffice (not a task: no ``main.py``).

**Tables.** ``counts`` and ``amounts`` make a variant's rows (distinct ``ITEMS``, each with a whole count
or an amount in cents); ``with_total`` is what a workbook holds once the rows are typed under the header
and a ``total`` row adds them up with a SUM formula over exactly the amounts (``_sheets.refers_to``: the
value alone, or a typed number, is not the formula asked). ``as_csv`` writes the rows as a CSV file's text
and ``entries`` as what the oracle types into Calc from A2 (item, Tab, value, Enter).

**Thunderbird beside LibreOffice.** Thunderbird rewrites its own files while it runs (``_thunderbird.
incidental``), so a task that keeps it open beside a LibreOffice document scores the saved document and
then the rest of home with ``_thunderbird.unchanged_but`` (the mail store among what must not change),
not with the LibreOffice modules' own ``unchanged_but``: ``book_beside_mail`` and ``document_beside_mail``.
With Calc or Writer open as well, Thunderbird's widgets did not reach the accessibility reader (a read took
4 s and held none of them), so those tasks' oracles type the carried data from the task's metadata into the
LibreOffice window in front, as the other LibreOffice oracles do.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from cua_bench import Session, Task, TaskError
from cua_bench_tasks_desktop._archive import focus
from cua_bench_tasks_desktop._calc import fmt
from cua_bench_tasks_desktop._common import files_since_setup, wait_for
from cua_bench_tasks_desktop._office import app_title, open_document, still, workbook
from cua_bench_tasks_desktop._sheets import (
    ITEMS,
    Cell,
    Formula,
    Want,
    cell_name,
    cells,
    refers_to,
    workbook_differences,
)
from cua_bench_tasks_desktop._thunderbird import open_thunderbird
from cua_bench_tasks_desktop._thunderbird import unchanged_but as mail_unchanged_but
from cua_bench_tasks_desktop._writer import differences, read_document

__all__ = [
    "amounts",
    "as_csv",
    "book_beside_mail",
    "counts",
    "document_beside_mail",
    "entries",
    "in_front",
    "number",
    "open_beside_mail",
    "sum_over",
    "with_total",
]


def counts(rng: random.Random, low: int = 3, high: int = 6) -> list[list[Cell]]:
    """``low`` to ``high`` rows ``[item, count]``: distinct items, whole counts from 1 to 99."""
    return [[item, rng.randint(1, 99)] for item in rng.sample(ITEMS, rng.randint(low, high))]


def amounts(rng: random.Random, low: int = 3, high: int = 6) -> list[list[Cell]]:
    """``low`` to ``high`` rows ``[item, amount]``: distinct items, amounts in cents from 0.50 to 99.75."""
    return [[item, rng.randint(2, 399) / 4] for item in rng.sample(ITEMS, rng.randint(low, high))]


def number(value: Cell) -> str:
    """A value as a person types it: ``12.5`` -> ``12.50``, ``7`` -> ``7``."""
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def as_csv(header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> str:
    """The rows under ``header`` as a CSV file's text (amounts with their two decimals)."""
    return "".join(",".join(number(value) for value in row) + "\n" for row in [list(header), *rows])


def sum_over(rows: Sequence[Sequence[Cell]], label: str = "total") -> list[Want]:
    """The total row under ``rows`` (typed from A2): ``label`` and a SUM formula over exactly B2 to the
    last row's B, with the rows' sum."""
    over = cells(f"B2:{cell_name(len(rows), 1)}") or set()
    total = sum(float(row[1]) for row in rows)
    return [label, Formula(lambda text: refers_to(text, "SUM", over), total)]


def with_total(header: Sequence[str], rows: Sequence[Sequence[Cell]], label: str = "total") -> list[list[Want]]:
    """A sheet's rows: the header, the rows, and the total row (``sum_over``)."""
    sheet: list[list[Want]] = [[*header]]
    for row in rows:
        sheet.append([*row])
    return [*sheet, sum_over(rows, label)]


def entries(rows: Sequence[Sequence[Cell]], *, quote: str = "", total: str | None = None) -> str:
    """What the oracle types from A2: each row's item, Tab, value (after ``quote``), one row per line; with
    ``total`` a last line of that label and text (a formula)."""
    lines = [f"{row[0]}\t{quote}{number(row[1])}" for row in rows]
    if total is not None:
        lines.append(total)
    return "\n".join(lines)


async def in_front(session: Session, app: str, path: str) -> None:
    """Setup's last move where two LibreOffice documents are open: the window of ``~/path`` in ``app`` has the
    keys. Both windows are one soffice process's, and the second to open did not always take the focus from
    the first (a check saw the oracle's keys go to the other document), so a window that has not taken it
    within seconds is clicked where nothing covers it (``_archive.focus``), as a person clicks it."""
    match = app_title(path, app)

    async def focused() -> bool:
        return any(info.get("focused") and match(info["title"]) for info in await session.windows())

    try:
        await wait_for(focused, "the document to take the focus", timeout=5)
    except TaskError:
        await focus(session, match)
    await still(session)


async def open_beside_mail(
    task: Task, session: Session, mails: dict[str, list[dict[str, Any]]], app: str, path: str, data: bytes
) -> None:
    """Setup: Thunderbird on its Inbox (``mails``: folder -> messages), then ``data`` at ``~/path`` open in
    LibreOffice's ``app`` in front, ready for keys, and every file under home remembered."""
    await open_thunderbird(task, session, mails, remember=False)
    await open_document(task, session, app, path, data)


async def book_beside_mail(task: Task, session: Session, sheets: dict[str, list[list[Want]]], path: str) -> float:
    """``_calc.scored`` with Thunderbird open: the workbook at ``~/path`` holds exactly ``sheets`` in its
    name's format, and nothing else under home changed but Thunderbird's own files."""
    found = workbook_differences(await workbook(session, path, fmt(path)), sheets)
    for difference in found:
        task.explain(f"{path}: {difference}")
    return 1.0 if not found and await mail_unchanged_but(task, session, [path]) else 0.0


async def document_beside_mail(task: Task, session: Session, expected: Sequence[str], path: str) -> float:
    """``_writer.scored`` with Thunderbird open: ``~/path`` a plain file (one link) holding exactly the
    paragraphs ``expected`` in its name's format, and nothing else under home changed but Thunderbird's."""
    _, after = await files_since_setup(task, session)
    state = after.get(path)
    if state is None:
        found = [f"{path} is missing"]
    elif state.kind != "file" or state.links != 1:
        found = [f"{path} is not a plain file with one link (a {state.kind}, {state.links} links)"]
    else:
        found = differences(await read_document(session, path), expected, what=path)
    for difference in found:
        task.explain(difference)
    return 1.0 if not found and await mail_unchanged_but(task, session, [path]) else 0.0
