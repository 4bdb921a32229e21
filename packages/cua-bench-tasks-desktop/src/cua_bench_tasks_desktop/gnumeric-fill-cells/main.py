"""gnumeric-fill-cells: type a small table into a new Gnumeric workbook and save it under a given name.

The evaluator reads the saved file as a workbook, cell by cell with types (``_sheets.scored``): the
table from A1 on the new workbook's one sheet, its counts stored as numbers, no formula, nothing
else; and no other file under home appeared or changed (a copy saved under another name first is
left over).
Wrong ways: ``starts_at_a2`` (the table one row too low), ``saves_a_stray_copy_first`` (saved under
a misspelt name, then again under the right one), ``numbers_typed_as_text`` (the counts typed as
``'12``) and ``exported_as_csv_under_the_name`` (Data > Export as CSV to the workbook's name: the
right values, not a workbook).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    loaders,
    snapshot_files,
    start,
    write_files,
)
from cua_bench_tasks_desktop._common import save_as as save_file_as
from cua_bench_tasks_desktop._sheets import ITEMS, Cell, export_csv, goto, scored
from cua_core import TypeText

NAME = "gnumeric-fill-cells"
HEADERS = (["item", "qty"], ["product", "count"], ["name", "stock"], ["item", "units"])
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    name = f"{rng.choice(['stock', 'order', 'pantry', 'list', 'count'])}_{rng.randint(1, 99)}.gnumeric"
    rows: list[list[Cell]] = [list(rng.choice(HEADERS))]
    rows += [[item, rng.randint(1, 40)] for item in rng.sample(ITEMS, rng.randint(2, 5))]
    shown = "; ".join(", ".join(str(v) for v in row) for row in rows)
    return cb.Task(
        description=f"In the new Gnumeric workbook, enter this table starting at cell A1, one row per line and "
        f"one value per column: {shown}. Then save the workbook as ~/{folder}/{name}.",
        metadata={"path": f"{folder}/{name}", "folder": folder, "rows": rows},
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, {f"{task.metadata['folder']}/.keep": ""})
    await start(session, "gnumeric", title=lambda title: title.endswith(" - Gnumeric"))
    task.scratch["before"] = await snapshot_files(session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, task.metadata["rows"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await fill(session, task.metadata["rows"])
    await save_as(session, "ctrl+s", task.metadata["path"])


async def fill(session: cb.Session, rows: list[list[Cell]], top: int = 0) -> None:
    for index, row in enumerate(rows):
        await goto(session, top + index, 0)
        await act(session, TypeText("\t".join(str(value) for value in row), press_enter=True))


async def save_as(session: cb.Session, combo: str, path: str) -> None:
    await save_file_as(session, combo, "Save the current workbook as", path, "Gnumeric")


@cb.wrong_way
async def starts_at_a2(task: cb.Task, session: cb.Session) -> None:
    """The table typed one row too low, from A2."""
    await fill(session, task.metadata["rows"], top=1)
    await save_as(session, "ctrl+s", task.metadata["path"])


@cb.wrong_way
async def saves_a_stray_copy_first(task: cb.Task, session: cb.Session) -> None:
    """Saved under a misspelt name first, then Save As under the right one: a stray copy is left."""
    meta = task.metadata
    folder, name = meta["path"].rsplit("/", 1)
    await fill(session, meta["rows"])
    await save_as(session, "ctrl+s", f"{folder}/{name[:2]}{name[3:]}")
    await save_as(session, "ctrl+shift+s", meta["path"])


@cb.wrong_way
async def numbers_typed_as_text(task: cb.Task, session: cb.Session) -> None:
    """The table with every count typed after an apostrophe: the right digits, stored as text."""
    rows = [[f"'{value}" if isinstance(value, int) else value for value in row] for row in task.metadata["rows"]]
    await fill(session, rows)
    await save_as(session, "ctrl+s", task.metadata["path"])


@cb.wrong_way
async def exported_as_csv_under_the_name(task: cb.Task, session: cb.Session) -> None:
    """The table, then Data > Export as CSV to the workbook's name: the right values, not a workbook."""
    await fill(session, task.metadata["rows"])
    await export_csv(session, task.metadata["path"])
