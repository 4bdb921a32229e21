"""gnumeric-sum-formula: below a column of numbers, add a SUM formula for their total, and save.

The evaluator reads the saved workbook cell by cell with types (``_sheets.scored``): the target
cell holds SUM over exactly the amounts (a typed total, even inside ``=SUM(...)``, or a range with
extra cells is not the formula asked for) and computes their total, it is the only formula, every
other cell is as it was, there is no other sheet, and no other file under home changed.
Wrong ways: ``typed_total_in_sum`` (``=SUM(<the total>)``: the right value, no references),
``oracle_then_clears_a_label`` (the formula, then one item's label deleted) and
``junk_in_a_second_sheet`` (the formula, and a sheet appended with junk in it).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, act, key, loaders
from cua_bench_tasks_desktop._gnumeric import Entry, WorkbookEdit, enter
from cua_bench_tasks_desktop._sheets import ITEMS, Cell, Formula, Want, cell_name, cells, price, refers_to
from cua_core import TypeText

NAME = "gnumeric-sum-formula"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{rng.choice(['expenses', 'sales', 'budget', 'costs'])}_{rng.randint(1, 99)}.gnumeric"
    count = rng.randint(3, 8)
    header: list[Cell] = ["item", "amount"]
    rows: list[list[Cell]] = [header] + [[item, price(rng)] for item in rng.sample(ITEMS, count)]
    col = 1
    target = cell_name(count + 1, col)
    return cb.Task(
        description=f"The workbook ~/{path} is open in Gnumeric. In cell {target}, enter a SUM formula that adds "
        f"up the amounts {cell_name(1, col)}:{cell_name(count, col)}, then save the workbook (ctrl+s).",
        metadata={
            "path": path,
            "rows": rows,
            "target": target,
            "row": count + 1,
            "col": col,
            "total": sum(float(row[1]) for row in rows[1:]),
        },
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def amounts(meta: Meta) -> str:
    return f"{cell_name(1, meta['col'])}:{cell_name(meta['row'] - 1, meta['col'])}"


def wanted(meta: Meta) -> list[list[Want]]:
    over = cells(amounts(meta)) or set()
    total = Formula(lambda text: refers_to(text, "SUM", over), meta["total"])
    return [*meta["rows"], ["", total]]


def sum_of(meta: Meta, argument: str) -> Entry:
    """SUM over ``argument`` in the target cell."""
    return meta["row"], meta["col"], f"=SUM({argument})"


EDIT = WorkbookEdit(wanted, lambda meta: sum_of(meta, amounts(meta)))
setup, evaluate, solve = EDIT.functions()


@cb.wrong_way
async def typed_total_in_sum(task: cb.Task, session: cb.Session) -> None:
    """The total read off the screen and typed inside SUM: the right value over no cells."""
    await enter(task, session, sum_of(task.metadata, f"{task.metadata['total']:g}"))


oracle_then_clears_a_label = EDIT.oracle_then_clears(
    "oracle_then_clears_a_label",
    "The formula, then one item's name deleted (the total does not change).",
    lambda meta: (1, 0),
)


@cb.wrong_way
async def junk_in_a_second_sheet(task: cb.Task, session: cb.Session) -> None:
    """Edit > Sheet > Append, junk typed into the new sheet, then back to the first for the formula."""
    await act(session, key("alt+e"), *[key("up")] * 4, key("right"), key("a"))  # up to Sheet, its Append
    await act(session, key("ctrl+Page_Down"), TypeText("junk\t123", press_enter=True), key("ctrl+Page_Up"))
    await solve(task, session)
