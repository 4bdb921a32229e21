"""calc-rename-sheet: rename the one sheet of a workbook in LibreOffice Calc and save it in its own format
(``.ods`` or ``.xlsx``, by variant).

The evaluator reads the saved workbook in its name's format with types (``_calc.scored``): exactly one
sheet, with exactly the asked-for name, holding exactly the cells it held; no other file under home changed.
Wrong ways: ``new_sheet_with_the_name`` (Sheet > Insert Sheet at End under the name: the old sheet
stays), ``capitalised_name`` (the name with a capital first letter) and ``never_saved``.
"""

from __future__ import annotations

import random
from dataclasses import replace

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calc import open_book, scored
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    click_at,
    key,
    loaders,
    submit_dialog,
    window,
)
from cua_bench_tasks_desktop._office import app_title, save
from cua_bench_tasks_desktop._sheets import ITEMS, Cell, price

NAME = "calc-rename-sheet"
WAIVED = OUTPUT_IS_THE_WORK
TAB = (174, -35)  # the first sheet tab, from the maximised window's bottom-left corner


def build(rng: random.Random) -> cb.Task:
    ext = rng.choice([".ods", ".xlsx"])
    path = f"{rng.choice(WORDS)}/{rng.choice(['prices', 'stock', 'list'])}_{rng.randint(1, 99)}{ext}"
    rows: list[list[Cell]] = [["item", "price"]] + [[item, price(rng)] for item in rng.sample(ITEMS, rng.randint(2, 6))]
    sheet = f"{rng.choice(WORDS)} {rng.choice(['q1', 'q2', 'q3', 'q4', 'week', 'month'])}{rng.randint(1, 9)}"
    return cb.Task(
        description=f"The workbook ~/{path} is open in LibreOffice Calc. Rename its sheet to {sheet} and save the "
        "workbook in its current format.",
        metadata={"path": path, "rows": rows, "sheet": sheet},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def wanted(meta: Meta) -> dict[str, list[list[Cell]]]:
    return {meta["sheet"]: meta["rows"]}


async def rename(task: cb.Task, session: cb.Session, name: str) -> None:
    """Double-click the sheet tab, and the Rename Sheet dialog filled with ``name``."""
    frame = await window(session, app_title(task.metadata["path"], "calc"))
    await act(session, replace(click_at(session, frame["bounds"], *TAB), clicks=2))
    await submit_dialog(session, "Rename Sheet", name)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_book(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, wanted(task.metadata))]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await rename(task, session, task.metadata["sheet"])
    await save(session, task.metadata["path"])


@cb.wrong_way
async def new_sheet_with_the_name(task: cb.Task, session: cb.Session) -> None:
    """Sheet > Insert Sheet at End, named as asked: the old sheet keeps its name and cells."""
    await act(session, key("alt+s"))
    await act(session, *[key("down")] * 9, key("Return"))  # Insert Sheet at End...
    await submit_dialog(session, "Append Sheet", task.metadata["sheet"])
    await save(session, task.metadata["path"])


@cb.wrong_way
async def capitalised_name(task: cb.Task, session: cb.Session) -> None:
    """The name with a capital first letter."""
    name = task.metadata["sheet"]
    await rename(task, session, name[0].upper() + name[1:])
    await save(session, task.metadata["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Renamed on screen, never saved."""
    await rename(task, session, task.metadata["sheet"])
