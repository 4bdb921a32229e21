"""calc-sum-formula: below a column of amounts in LibreOffice Calc, add a SUM formula for their total
and save the workbook in its own format (``.ods`` or ``.xlsx``, by variant).

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``): the target
cell holds SUM over exactly the amounts (a typed total, even inside ``=SUM(...)``, or a range with an
extra cell is not the formula asked for) with Calc's own result, it is the only formula, every other
cell is as it was, there is no other sheet, and no other file under home changed.
Wrong ways: ``typed_total_in_sum`` (``=SUM(<the total>)``: the right value over no cells),
``sum_with_the_header`` (the range starts at the header row: the same total),
``oracle_then_clears_a_label`` (the formula, then one item's label deleted) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import CalcEdit, Entry, type_entries
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Cell, Formula, Want, cell_name, cells, price, refers_to

NAME = "calc-sum-formula"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    ext = rng.choice([".ods", ".xlsx"])
    path = f"{rng.choice(WORDS)}/{rng.choice(['expenses', 'sales', 'budget', 'costs'])}_{rng.randint(1, 99)}{ext}"
    count = rng.randint(3, 8)
    rows: list[list[Cell]] = [["item", "amount"]] + [[item, price(rng)] for item in rng.sample(ITEMS, count)]
    target = cell_name(count + 1, 1)
    return cb.Task(
        description=f"The workbook ~/{path} is open in LibreOffice Calc. In cell {target}, enter a SUM formula "
        f"that adds up the amounts {cell_name(1, 1)}:{cell_name(count, 1)}, then save the workbook in its "
        "current format.",
        metadata={"path": path, "rows": rows, "row": count + 1, "total": sum(float(r[1]) for r in rows[1:])},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def amounts(meta: Meta, first: int = 1) -> str:
    return f"{cell_name(first, 1)}:{cell_name(meta['row'] - 1, 1)}"


def wanted(meta: Meta) -> dict[str, list[list[Want]]]:
    over = cells(amounts(meta)) or set()
    return {SHEET: [*meta["rows"], ["", Formula(lambda text: refers_to(text, "SUM", over), meta["total"])]]}


def sum_of(meta: Meta, argument: str) -> list[Entry]:
    return [(meta["row"], 1, f"=SUM({argument})")]


EDIT = CalcEdit(wanted, lambda meta: sum_of(meta, amounts(meta)))
setup, evaluate, solve = EDIT.functions()


async def _typed(task: cb.Task, session: cb.Session, entries: list[Entry]) -> None:
    await type_entries(session, entries)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def typed_total_in_sum(task: cb.Task, session: cb.Session) -> None:
    """The total read off the screen and typed inside SUM: the right value over no cells."""
    await _typed(task, session, sum_of(task.metadata, f"{task.metadata['total']:g}"))


@cb.wrong_way
async def sum_with_the_header(task: cb.Task, session: cb.Session) -> None:
    """SUM from the header row down: text counts as nothing, so the total is the same."""
    await _typed(task, session, sum_of(task.metadata, amounts(task.metadata, first=0)))


oracle_then_clears_a_label = EDIT.oracle_then_clears(
    "oracle_then_clears_a_label",
    "The formula, then one item's name deleted (the total does not change).",
    lambda meta: (1, 0),
)
never_saved = EDIT.unsaved("never_saved", "The formula typed and never saved.")
