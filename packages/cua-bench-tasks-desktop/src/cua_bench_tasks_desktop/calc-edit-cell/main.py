"""calc-edit-cell: change one value of a table in LibreOffice Calc (found by its row label) and save it
in its own format (``.ods`` or ``.xlsx``, by variant).

The evaluator reads the saved workbook in the format its name asks for, cell by cell with types
(``_calc.scored``): the one value changed and stored as a number, every other cell as it was, no
formula, no other sheet, and no other file under home changed.
Wrong ways: ``edits_the_other_column`` (the value typed into the row's other number),
``oracle_then_clears_another_label`` (the edit, then another row's item deleted), ``typed_as_text``
(``'75``: the right digits, stored as text) and ``never_saved`` (the edit on screen only).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._calc import CalcEdit, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._sheets import SHEET, one_cell_edit

NAME = "calc-edit-cell"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    ext = rng.choice([".ods", ".xlsx"])
    path = f"{rng.choice(WORDS)}/{rng.choice(['inventory', 'orders', 'stock'])}_{rng.randint(1, 99)}{ext}"
    meta, change = one_cell_edit(rng)
    return cb.Task(
        description=f"The workbook ~/{path} is open in LibreOffice Calc. {change}, then save it in its current format.",
        metadata={"path": path, **meta},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)

EDIT = CalcEdit(lambda meta: {SHEET: meta["expected"]}, lambda meta: [(meta["row"], meta["col"], str(meta["value"]))])
setup, evaluate, solve = EDIT.functions()


@cb.wrong_way
async def edits_the_other_column(task: cb.Task, session: cb.Session) -> None:
    """The new value typed into the row's other number (qty for price, or price for qty)."""
    meta = task.metadata
    await type_entries(session, [(meta["row"], 3 - meta["col"], str(meta["value"]))])
    await save(session, meta["path"])


oracle_then_clears_another_label = EDIT.oracle_then_clears(
    "oracle_then_clears_another_label",
    "The edit, then another row's item name deleted.",
    lambda meta: (1 if meta["row"] != 1 else 2, 0),
)


@cb.wrong_way
async def typed_as_text(task: cb.Task, session: cb.Session) -> None:
    """The new value typed after an apostrophe: the right digits on screen, stored as text."""
    meta = task.metadata
    await type_entries(session, [(meta["row"], meta["col"], f"'{meta['value']}")])
    await save(session, meta["path"])


never_saved = EDIT.unsaved("never_saved", "The edit typed and never saved.")
