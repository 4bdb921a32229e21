"""calc-save-as-xlsx: save the workbook open in LibreOffice Calc (``.ods``) as an Excel workbook
(``.xlsx``) beside it, keeping the original.

The evaluator reads the new file as ``.xlsx`` by content (an ``.ods`` or a CSV under the name is not
one; ``cua_bench.office.parse_as``) and compares it whole with the original's sheets and typed cells
(``_calc.scored``); the ``.ods`` must be as setup left it, and no other file under home changed.
Wrong ways: ``edited_after_saving`` (saved as asked, then a value changed and saved again), ``edited_before_saving``
(one value changed first: the copy differs) and ``saved_in_home`` (the right name, in the home
folder instead of the workbook's).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._calc import open_book, scored, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._office import save, save_as
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Cell, price

NAME = "calc-save-as-xlsx"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    stem = f"{rng.choice(['prices', 'stock', 'ledger', 'orders'])}_{rng.randint(1, 99)}"
    target = f"{stem}{rng.choice(['', '-excel', '_shared'])}.xlsx"
    rows: list[list[Cell]] = [["item", "qty", "price"]]
    rows += [[item, rng.randint(1, 50), price(rng)] for item in rng.sample(ITEMS, rng.randint(2, 7))]
    return cb.Task(
        description=f"The workbook ~/{folder}/{stem}.ods is open in LibreOffice Calc. Save it as an Excel workbook "
        f"named {target} in the same folder (~/{folder}), keeping the .ods file as it is.",
        metadata={"path": f"{folder}/{stem}.ods", "target": f"{folder}/{target}", "rows": rows},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_book(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await scored(task, session, {SHEET: meta["rows"]}, path=meta["target"])]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await save_as(session, task.metadata["target"], "calc")


@cb.wrong_way
async def edited_after_saving(task: cb.Task, session: cb.Session) -> None:
    """Saved as asked, then one qty changed in the new workbook and saved again (ctrl+s, kept as Excel)."""
    await save_as(session, task.metadata["target"], "calc")
    await type_entries(session, [(1, 1, "999")])
    await save(session, task.metadata["target"])


@cb.wrong_way
async def edited_before_saving(task: cb.Task, session: cb.Session) -> None:
    """One qty changed first, then saved as asked: the copy is not the workbook."""
    await type_entries(session, [(1, 1, "999")])
    await save_as(session, task.metadata["target"], "calc")


@cb.wrong_way
async def saved_in_home(task: cb.Task, session: cb.Session) -> None:
    """The right name and format, in the home folder."""
    await save_as(session, task.metadata["target"].rsplit("/", 1)[1], "calc")
