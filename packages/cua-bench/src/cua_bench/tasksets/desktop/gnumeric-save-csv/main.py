"""gnumeric-save-csv: export the open workbook's sheet as a CSV file (Data > Export Data > Export as CSV File).

The evaluator checks the CSV file holds exactly the sheet's rows, and that no other file under home
changed: the workbook stays as it was.
Wrong ways: ``exports_to_home`` (the right name in the home folder) and
``oracle_then_saves_an_edit`` (the export, then a cell changed and the workbook saved).
"""

from __future__ import annotations

import csv
import io
import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    WORDS,
    act,
    file_title,
    key,
    loaders,
    read_text,
    save_and_wait,
    snapshot_files,
    start,
    submit_dialog,
    wait_path,
    write_files,
)
from cua_bench.tasksets.desktop._sheets import ITEMS, Cell, goto, make_workbook, matches, others_unchanged, price
from cua_core.actions import TypeText, Wait

NAME = "gnumeric-save-csv"
EXPORT_DIALOG = "Export the current workbook or sheet to"


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    stem = f"{rng.choice(['inventory', 'orders', 'prices', 'stock'])}_{rng.randint(1, 99)}"
    target_folder = rng.choice([folder, "exports", "outbox", "shared"])
    target = f"{target_folder}/{rng.choice([stem, stem + '_export', 'export_' + str(rng.randint(1, 99))])}.csv"
    rows: list[list[Cell]] = [["item", "qty", "price"]]
    rows += [[item, rng.randint(1, 50), price(rng)] for item in rng.sample(ITEMS, rng.randint(2, 7))]
    return cb.Task(
        description=f"The workbook ~/{folder}/{stem}.gnumeric is open in Gnumeric. Export its sheet as a CSV "
        f"(comma-separated values) file named ~/{target}.",
        metadata={"path": f"{folder}/{stem}.gnumeric", "target": target, "rows": rows, "folder": target_folder},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def parsed(text: str | None) -> list[list[str]] | None:
    return None if text is None else list(csv.reader(io.StringIO(text)))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await make_workbook(session, meta["path"], meta["rows"])
    await write_files(session, {f"{meta['folder']}/.keep": ""})
    await start(session, "gnumeric", meta["path"], title=file_title(meta["path"], "Gnumeric"))
    task.scratch["before"] = await snapshot_files(session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    ok = matches(parsed(await read_text(session, meta["target"])), meta["rows"])
    ok = ok and await others_unchanged(session, task.scratch["before"], [meta["target"]])
    return [1.0 if ok else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await export(session, meta["target"])
    await wait_path(session, meta["target"], lambda text: matches(parsed(text), meta["rows"]))


async def export(session: cb.Session, target: str) -> None:
    # Data menu, up to its last item (Export Data), into the submenu, "Export as _CSV File...".
    await act(session, key("alt+d"))
    await act(session, key("up"))
    await act(session, key("right"))
    await act(session, key("c"))
    await submit_dialog(session, EXPORT_DIALOG, f"~/{target}")


@cb.wrong_way
async def exports_to_home(task: cb.Task, session: cb.Session) -> None:
    """The right file name, but in the home folder rather than the folder asked for."""
    await export(session, task.metadata["target"].rsplit("/", 1)[-1])
    await act(session, Wait(1.0))


@cb.wrong_way
async def oracle_then_saves_an_edit(task: cb.Task, session: cb.Session) -> None:
    """The export, then the first item's qty changed and the workbook saved: the workbook is not as it was."""
    meta = task.metadata
    await export(session, meta["target"])
    await act(session, Wait(1.0))
    await goto(session, 1, 1)
    await act(session, TypeText("999", press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")
