"""gnumeric-stat-formula: next to a label, compute a column's average, maximum or minimum with a formula.

The evaluator reads the saved workbook cell by cell with types (``_sheets.scored``): the target
cell holds the named function over exactly the values (a typed result, even inside the function, or
a wider range whose extra cells are empty and change nothing, is not the formula asked for) and
computes the result, it is the only formula, the label is there, every other cell is as it was,
there is no other sheet, and no other file under home changed.
Wrong ways: ``typed_result_in_function`` (``=MAX(<the result>)``), ``over_a_wider_range`` (the
function over the values and the empty cells below them: the same value) and
``oracle_then_clears_a_value_label`` (the formula, then one item's name deleted).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, loaders
from cua_bench_tasks_desktop._gnumeric import Entry, WorkbookEdit, enter
from cua_bench_tasks_desktop._sheets import ITEMS, Cell, Formula, Want, cell_name, cells, refers_to

NAME = "gnumeric-stat-formula"
FUNCTIONS: dict[str, tuple[str, Callable[[list[int]], float]]] = {
    "AVERAGE": ("average", statistics.fmean),
    "MAX": ("largest", max),
    "MIN": ("smallest", min),
}
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = (
        f"{rng.choice(WORDS)}/{rng.choice(['scores', 'readings', 'results', 'prices'])}_{rng.randint(1, 99)}.gnumeric"
    )
    count = rng.randint(3, 8)
    values = [rng.randint(1, 400) for _ in range(count)]
    header: list[Cell] = ["item", "value"]
    rows: list[list[Cell]] = [header] + [[item, v] for item, v in zip(rng.sample(ITEMS, count), values, strict=True)]
    function = rng.choice(sorted(FUNCTIONS))
    words, compute = FUNCTIONS[function]
    label_row = count + 2  # one empty row between the data and the label
    label = function.lower()
    target = cell_name(label_row, 1)
    return cb.Task(
        description=f"The workbook ~/{path} is open in Gnumeric. Put the label '{label}' in cell "
        f"{cell_name(label_row, 0)} and, in {target}, a formula with the {function} function that gives the "
        f"{words} of the values {cell_name(1, 1)}:{cell_name(count, 1)}. Then save the workbook (ctrl+s).",
        metadata={
            "path": path,
            "rows": rows,
            "function": function,
            "label": label,
            "label_row": label_row,
            "target": target,
            "result": float(compute(values)),
            "count": count,
        },
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def values(meta: Meta) -> str:
    return f"{cell_name(1, 1)}:{cell_name(meta['count'], 1)}"


def wanted(meta: Meta) -> list[list[Want]]:
    over = cells(values(meta)) or set()
    result = Formula(lambda text: refers_to(text, meta["function"], over), meta["result"])
    return [*meta["rows"], [], [meta["label"], result]]


def labelled(meta: Meta, argument: str) -> Entry:
    """The label, and the function over ``argument`` next to it."""
    return meta["label_row"], 0, f"{meta['label']}\t={meta['function']}({argument})"


EDIT = WorkbookEdit(wanted, lambda meta: labelled(meta, values(meta)))
setup, evaluate, solve = EDIT.functions()


@cb.wrong_way
async def typed_result_in_function(task: cb.Task, session: cb.Session) -> None:
    """The result worked out by hand and typed inside the function: the right value over no cells."""
    await enter(task, session, labelled(task.metadata, f"{task.metadata['result']!r}"))


@cb.wrong_way
async def over_a_wider_range(task: cb.Task, session: cb.Session) -> None:
    """The function over the values and empty cells below them (the function skips those): same value."""
    meta = task.metadata
    await enter(task, session, labelled(meta, f"{cell_name(1, 1)}:{cell_name(meta['count'] + 1, 1)}"))


oracle_then_clears_a_value_label = EDIT.oracle_then_clears(
    "oracle_then_clears_a_value_label",
    "The label and formula, then one item's name deleted (the result does not change).",
    lambda meta: (1, 0),
)
