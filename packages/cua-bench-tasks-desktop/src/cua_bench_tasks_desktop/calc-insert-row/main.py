"""calc-insert-row: insert a row for a new item between two rows of a table in LibreOffice Calc, fill it,
and save the workbook in its own format (``.ods`` or ``.xlsx``, by variant).

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``): the rows
above as they were, the new item's row with its qty and price as numbers, then the rows below moved
down whole; no other sheet, no other file under home changed.
Wrong ways: ``appended_at_the_end`` (the new row after the last), ``typed_over_the_row`` (the new
values over the row that was there, nothing inserted) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import goto, open_book, scored, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, act, key, loaders
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Cell, price

NAME = "calc-insert-row"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    ext = rng.choice([".ods", ".xlsx"])
    path = f"{rng.choice(WORDS)}/{rng.choice(['stock', 'orders', 'pantry'])}_{rng.randint(1, 99)}{ext}"
    items = rng.sample(ITEMS, rng.randint(4, 8))
    new = items.pop()
    rows: list[list[Cell]] = [["item", "qty", "price"]] + [[item, rng.randint(1, 50), price(rng)] for item in items]
    at = rng.randint(2, len(rows) - 1)  # the new row goes here (0-based): between rows at-1 and at
    added: list[Cell] = [new, rng.randint(51, 99), price(rng)]
    return cb.Task(
        description=f"The workbook ~/{path} is open in LibreOffice Calc. Insert a new row between "
        f"{rows[at - 1][0]} and {rows[at][0]} for {new} with qty {added[1]} and price {added[2]}, then save the "
        "workbook in its current format.",
        metadata={"path": path, "rows": rows, "at": at, "added": added},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def line(meta: Meta) -> str:
    return "\t".join(str(value) for value in meta["added"])


async def insert_above(session: cb.Session, row: int) -> None:
    """Sheet > Insert Rows > Rows Above, with the cursor in ``row``."""
    await goto(session, row, 0)
    await act(session, key("alt+s"))
    await act(session, key("down"), key("right"), key("Return"))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_book(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    rows = [*meta["rows"][: meta["at"]], meta["added"], *meta["rows"][meta["at"] :]]
    return [await scored(task, session, {SHEET: rows})]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await insert_above(session, meta["at"])
    await type_entries(session, [(meta["at"], 0, line(meta))])
    await save(session, meta["path"])


@cb.wrong_way
async def appended_at_the_end(task: cb.Task, session: cb.Session) -> None:
    """The new row typed after the last one."""
    meta = task.metadata
    await type_entries(session, [(len(meta["rows"]), 0, line(meta))])
    await save(session, meta["path"])


@cb.wrong_way
async def typed_over_the_row(task: cb.Task, session: cb.Session) -> None:
    """The new values typed over the row that was there: nothing inserted, one item lost."""
    meta = task.metadata
    await type_entries(session, [(meta["at"], 0, line(meta))])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Inserted and filled on screen, never saved."""
    meta = task.metadata
    await insert_above(session, meta["at"])
    await type_entries(session, [(meta["at"], 0, line(meta))])
