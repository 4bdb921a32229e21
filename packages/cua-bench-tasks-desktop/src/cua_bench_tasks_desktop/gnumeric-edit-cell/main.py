"""gnumeric-edit-cell: change one value of a table in Gnumeric (found by its row label) and save.

The evaluator reads the saved workbook cell by cell with types (``_sheets.scored``): the one value
changed and stored as a number, every other cell as it was, no formula, no other sheet, and no other
file under home changed.
Wrong ways: ``edits_the_other_column`` (the new value typed into the row's other number),
``oracle_then_clears_another_label`` (the edit, then another row's item name deleted),
``typed_as_text`` (``'75``: the right digits, stored as text) and ``exported_as_csv_under_its_name``
(the edit, then Data > Export as CSV over the workbook: the right values, not a workbook).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._gnumeric import WorkbookEdit, enter
from cua_bench_tasks_desktop._sheets import export_csv, one_cell_edit, type_at

NAME = "gnumeric-edit-cell"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{rng.choice(['inventory', 'orders', 'stock'])}_{rng.randint(1, 99)}.gnumeric"
    meta, change = one_cell_edit(rng)
    return cb.Task(
        description=f"The workbook ~/{path} is open in Gnumeric. {change}, then save the workbook (ctrl+s).",
        metadata={"path": path, **meta},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


EDIT = WorkbookEdit(lambda meta: meta["expected"], lambda meta: (meta["row"], meta["col"], str(meta["value"])))
setup, evaluate, solve = EDIT.functions()


@cb.wrong_way
async def edits_the_other_column(task: cb.Task, session: cb.Session) -> None:
    """The new value typed into the row's other number (qty for price, or price for qty)."""
    meta = task.metadata
    await enter(task, session, (meta["row"], 3 - meta["col"], str(meta["value"])))


oracle_then_clears_another_label = EDIT.oracle_then_clears(
    "oracle_then_clears_another_label",
    "The edit, then another row's item name deleted.",
    lambda meta: (1 if meta["row"] != 1 else 2, 0),
)


@cb.wrong_way
async def typed_as_text(task: cb.Task, session: cb.Session) -> None:
    """The new value typed after an apostrophe: the right digits on screen and in a CSV, stored as text."""
    meta = task.metadata
    await enter(task, session, (meta["row"], meta["col"], f"'{meta['value']}"))


@cb.wrong_way
async def exported_as_csv_under_its_name(task: cb.Task, session: cb.Session) -> None:
    """The edit, then Data > Export as CSV over the workbook's own file: the right values, not a workbook."""
    meta = task.metadata
    await type_at(session, meta["row"], meta["col"], str(meta["value"]))
    await export_csv(session, meta["path"], replace=True)
