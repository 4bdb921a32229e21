"""gnumeric-save-csv: export the open workbook's sheet as a CSV file (Data > Export Data > Export as CSV File).

The evaluator checks the file is CSV text (``_sheets.csv_rows``: a workbook saved under the name
is not) holding exactly the sheet's rows, and that no other file under home changed: the workbook
stays as it was.
Wrong ways: ``exports_to_home`` (the right name in the home folder), ``oracle_then_saves_an_edit``
(the export, then a cell changed and the workbook saved) and ``saves_the_workbook_as_the_csv``
(File > Save As under the CSV's name, keeping Gnumeric's format).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    file_title,
    key,
    loaders,
    save_and_wait,
    submit_dialog,
    wait_path,
    window,
    write_files,
)
from cua_bench_tasks_desktop._sheets import (
    ITEMS,
    Cell,
    csv_rows,
    export_csv,
    goto,
    matches,
    open_workbook,
    others_unchanged,
    price,
)
from cua_core import CuaError, TypeText, Wait

NAME = "gnumeric-save-csv"
SAVE_DIALOG = "Save the current workbook as"
WAIVED = OUTPUT_IS_THE_WORK


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


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, {f"{task.metadata['folder']}/.keep": ""})
    await open_workbook(task, session)


async def exported(session: cb.Session, path: str) -> list[list[str]] | None:
    """The rows of the CSV file at ``path``; None when it is missing or not CSV text."""
    try:
        return csv_rows(await session.read_bytes(path))
    except (OSError, CuaError):
        return None


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    ok = matches(await exported(session, meta["target"]), meta["rows"])
    ok = ok and await others_unchanged(task, session, [meta["target"]])
    return [1.0 if ok else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await export_csv(session, meta["target"])
    await wait_path(
        session, meta["target"], lambda text: matches(csv_rows(None if text is None else text.encode()), meta["rows"])
    )


@cb.wrong_way
async def exports_to_home(task: cb.Task, session: cb.Session) -> None:
    """The right file name, but in the home folder rather than the folder asked for."""
    await export_csv(session, task.metadata["target"].rsplit("/", 1)[-1])
    await act(session, Wait(1.0))


@cb.wrong_way
async def oracle_then_saves_an_edit(task: cb.Task, session: cb.Session) -> None:
    """The export, then the first item's qty changed and the workbook saved: the workbook is not as it was."""
    meta = task.metadata
    await export_csv(session, meta["target"])
    await act(session, Wait(1.0))
    await goto(session, 1, 1)
    await act(session, TypeText("999", press_enter=True))
    await save_and_wait(session, meta["path"], "Gnumeric")


@cb.wrong_way
async def saves_the_workbook_as_the_csv(task: cb.Task, session: cb.Session) -> None:
    """File > Save As under the CSV's name, the file type left at Gnumeric XML: a gzip'd workbook called
    ``.csv`` (Gnumeric asks whether to keep a name that does not match the type; Yes is focused)."""
    target = task.metadata["target"]
    await act(session, key("ctrl+shift+s"))
    await window(session, SAVE_DIALOG)
    await act(session, key("ctrl+a"), TypeText(f"~/{target}"), key("delete"), Wait(0.3), key("enter"))
    await submit_dialog(session, "")
    await window(session, file_title(target, "Gnumeric"))
