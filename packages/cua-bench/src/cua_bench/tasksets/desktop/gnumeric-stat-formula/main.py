"""gnumeric-stat-formula: next to a label, compute a column's average, maximum or minimum with a formula."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable

import cua_bench as cb
from cua_bench.tasksets.desktop._common import WORDS, act, file_title, loaders, save_and_wait, start
from cua_bench.tasksets.desktop._sheets import (
    ITEMS,
    Cell,
    cell_name,
    formulas,
    goto,
    make_workbook,
    matches,
    sheet_rows,
)
from cua_core.actions import TypeText

NAME = "gnumeric-stat-formula"
FUNCTIONS: dict[str, tuple[str, Callable[[list[int]], float]]] = {
    "AVERAGE": ("average", statistics.fmean),
    "MAX": ("largest", max),
    "MIN": ("smallest", min),
}


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
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await make_workbook(session, meta["path"], meta["rows"])
    await start(session, "gnumeric", meta["path"], title=file_title(meta["path"], "Gnumeric"))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    formula = (await formulas(session, meta["path"])).get(meta["target"], "").upper().replace(" ", "")
    expected = [*meta["rows"], [], [meta["label"], meta["result"]]]
    ok = formula.startswith(f"={meta['function']}(")
    return [1.0 if ok and matches(await sheet_rows(session, meta["path"]), expected) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    cells = f"{cell_name(1, 1)}:{cell_name(meta['count'], 1)}"
    await goto(session, meta["label_row"], 0)
    await act(session, TypeText(f"{meta['label']}\t={meta['function']}({cells})", press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")
