"""gnumeric-fill-cells: type a small table into a new Gnumeric workbook and save it under a given name."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    WORDS,
    act,
    file_title,
    key,
    loaders,
    start,
    submit_dialog,
    window,
    write_files,
)
from cua_bench.tasksets.desktop._sheets import ITEMS, Cell, goto, matches, sheet_rows
from cua_core.actions import TypeText

NAME = "gnumeric-fill-cells"
HEADERS = (["item", "qty"], ["product", "count"], ["name", "stock"], ["item", "units"])


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
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, {f"{task.metadata['folder']}/.keep": ""})
    await start(session, "gnumeric", title=lambda title: title.endswith(" - Gnumeric"))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if matches(await sheet_rows(session, task.metadata["path"]), task.metadata["rows"]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    for index, row in enumerate(meta["rows"]):
        await goto(session, index, 0)
        await act(session, TypeText("\t".join(str(value) for value in row), press_enter=True))
    await act(session, key("ctrl+s"))
    await submit_dialog(session, "Save the current workbook as", f"~/{meta['path']}")
    await window(session, file_title(meta["path"], "Gnumeric"))
