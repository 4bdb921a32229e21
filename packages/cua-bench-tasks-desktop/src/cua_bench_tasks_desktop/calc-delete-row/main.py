"""calc-delete-row: delete the row of a named item from a table in LibreOffice Calc, so the rows below
move up, and save the workbook in its own format (``.ods`` or ``.xlsx``, by variant).

The item is never the last row, so a row only emptied is told from a row deleted. The evaluator reads
the saved workbook in its name's format with types (``_calc.scored``, ``_sheets.workbook_differences``):
the header and the rows above as they were, the rows below moved up whole (items, qtys and prices as
text and numbers), nothing where the last row was, no other sheet, no other file under home changed.
The oracle selects the item's row (its cell by the Name Box, then shift+space), runs Sheet > Delete Rows from
LibreOffice's Search Commands (Shift+Esc) and saves with ctrl+s.
Wrong ways: ``cleared_not_deleted`` (the row selected and its contents deleted with the Delete key: an
empty row stays), ``deleted_the_row_below``, ``deleted_a_column`` (Delete Columns with the item's cell
selected: column A gone, the row kept) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._calc import goto, open_book, scored
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders, press
from cua_bench_tasks_desktop._office import save, search_command
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Cell

NAME = "calc-delete-row"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    ext = rng.choice([".ods", ".xlsx"])
    path = f"{rng.choice(WORDS)}/{rng.choice(['stock', 'orders', 'pantry', 'supplies'])}_{rng.randint(1, 99)}{ext}"
    rows: list[list[Cell]] = [["item", "qty", "price"]]
    rows += [[item, rng.randint(1, 60), rng.randint(2, 80) / 4] for item in rng.sample(ITEMS, rng.randint(4, 8))]
    at = rng.randint(1, len(rows) - 2)  # never the last row: an emptied row must differ from a deleted one
    return cb.Task(
        description=f"The workbook ~/{path} is open in LibreOffice Calc. Delete the whole row of {rows[at][0]} from "
        "the table so that the rows below it move up, then save the workbook in its current format.",
        metadata={"path": path, "rows": rows, "at": at},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


async def delete(session: cb.Session, row: int, what: str = "Delete Rows", select_row: bool = True) -> None:
    """The cursor in column A of ``row`` (the row selected with shift+space), then ``what`` from Search Commands."""
    await goto(session, row, 0)
    if select_row:
        await press(session, "shift+space")
    await search_command(session, what)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_book(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    rows = [row for index, row in enumerate(meta["rows"]) if index != meta["at"]]
    return [await scored(task, session, {SHEET: rows})]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await delete(session, task.metadata["at"])
    await save(session, task.metadata["path"])


@cb.wrong_way
async def cleared_not_deleted(task: cb.Task, session: cb.Session) -> None:
    """The row selected and its contents deleted (Delete): the row stays, empty, the rows below in place."""
    await goto(session, task.metadata["at"], 0)
    await press(session, "shift+space", "delete")
    await save(session, task.metadata["path"])


@cb.wrong_way
async def deleted_the_row_below(task: cb.Task, session: cb.Session) -> None:
    """Delete Rows one row too low: the next item's row gone, the asked one kept."""
    await delete(session, task.metadata["at"] + 1)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def deleted_a_column(task: cb.Task, session: cb.Session) -> None:
    """Delete Columns with the item's cell selected: column A (every item's name) gone, the row kept."""
    await delete(session, task.metadata["at"], "Delete Columns", select_row=False)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The row deleted on screen, never saved."""
    await delete(session, task.metadata["at"])
