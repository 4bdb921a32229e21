"""multi-pcmanfm-to-mousepad: find the largest file of a folder shown in PCManFM (its Size column),
open it in Mousepad from the file manager, add a line at its end and save it.

The folder holds 4 or 5 notes of clearly different sizes; PCManFM shows it in its detailed list (setup
seeds ``pcmanfm.conf`` with ``view_mode=list``, so the sizes show as a person would set them), and
text files open in Mousepad (setup's ``~/.config/mimeapps.list``, a person's chosen editor). The task
does not name the file: its size, seen in the file manager, does.
The oracle selects the file in PCManFM by typing its name (``_pcmanfm.select_file``) and presses Enter,
which opens it in Mousepad; it types the line at the end (ctrl+End) and saves (ctrl+s).

The evaluator reads the end state from the file snapshot: the largest note a plain file (one link)
holding its text and the line (the final newline is the stated slack), every other file under home as
setup left it (PCManFM's own view settings aside: ``pcmanfm.conf`` and ``libfm.conf`` change when a view
is switched, and are no answer here; Mousepad makes its state folder ``~/.local/share/Mousepad`` when it
first starts, which is after setup here); and Mousepad still shows that note, saved (its window title;
the instruction asks to leave it open): a line appended from PCManFM's terminal (F4) never opened the
note in the editor. The adversary's forged write is waived (``OUTPUT_IS_THE_WORK``): the note is the
output asked for, and an agent that opens it in Mousepad and then rewrites it from a terminal passes.
Wrong ways: ``edits_the_second_largest``, ``line_at_the_top`` (the line added before the first) and
``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench import TaskError
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    act,
    distinct,
    edit_and_save,
    file_name,
    file_title,
    files_since_setup,
    key,
    loaders,
    nothing_else_changed,
    output_text,
    remember_files,
    same_text,
    sentence,
    start,
    text_difference,
    window,
    write_files,
)
from cua_bench_tasks_desktop._pcmanfm import select_file
from cua_core import Action, TypeText

NAME = "multi-pcmanfm-to-mousepad"
WAIVED = OUTPUT_IS_THE_WORK
FOLDERS = ("Documents", "Notes", "Projects", "Reports", "Inbox")
CONFIG = ".config/pcmanfm/default/pcmanfm.conf"
LIBFM = ".config/libfm/libfm.conf"
MIMEAPPS = ".config/mimeapps.list"
MOUSEPAD_STATE = ".local/share/Mousepad"  # Mousepad's own state, made when it first starts (after setup here)
LINES = (1, 3, 6, 10, 15)  # sentences per note: each size about 1.5 times the one below or more


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    names = distinct(rng, rng.randint(4, 5), lambda r: file_name(r, ".txt"))
    sizes = rng.sample(LINES, len(names))
    files = {
        f"{folder}/{name}": "".join(sentence(rng) + "\n" for _ in range(lines))
        for name, lines in zip(names, sizes, strict=True)
    }
    order = sorted(files, key=lambda path: len(files[path]), reverse=True)
    line = f"checked: {sentence(rng)}"
    return cb.Task(
        description=f"The file manager shows the folder ~/{folder}. Open the largest file in that folder (by size) "
        f"in Mousepad, add the line '{line}' at its end, and save it; leave it open in Mousepad.",
        metadata={"folder": folder, "files": files, "largest": order[0], "second": order[1], "line": line},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(
        session,
        {
            **meta["files"],
            CONFIG: "[ui]\nview_mode=list\nshow_statusbar=1\n",
            MIMEAPPS: "[Default Applications]\ntext/plain=org.xfce.mousepad.desktop\n",
        },
    )
    await start(session, "pcmanfm", meta["folder"], title=meta["folder"])
    await remember_files(task, session)


def edited(meta: Meta, path: str, *, top: bool = False) -> str:
    text = meta["files"][path]
    return f"{meta['line']}\n{text}" if top else f"{text}{meta['line']}\n"


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    path = meta["largest"]
    before, after = await files_since_setup(task, session)
    actual = await output_text(session, after, path)
    ok = same_text(actual, edited(meta, path))
    if not ok:
        task.explain(f"{path}: {text_difference(actual, edited(meta, path))}")
    shown = any(file_title(path, "Mousepad")(info["title"]) for info in await session.windows())
    if not shown:
        task.explain(f"no Mousepad window shows {path} saved")
    kept = nothing_else_changed(task, before, after, expect=[path, CONFIG, LIBFM, MOUSEPAD_STATE])
    return [1.0 if ok and shown and kept else 0.0]


async def opened(session: cb.Session, folder: str, path: str, tries: int = 3) -> None:
    """The file selected in PCManFM (type-ahead) and opened with Enter, until Mousepad shows it: on a busy
    host the type-ahead can miss the row, and Enter then opens nothing, so a person looks and tries again."""
    for attempt in range(tries):
        await select_file(session, folder, path.rsplit("/", 1)[1])
        await act(session, key("Return"))
        try:
            await window(session, file_title(path, "Mousepad"), timeout=15 if attempt < tries - 1 else 60)
            return
        except TaskError:
            if attempt == tries - 1:
                raise


async def _edit(task: cb.Task, session: cb.Session, path: str, *, top: bool = False, saved: bool = True) -> None:
    meta = task.metadata
    await opened(session, meta["folder"], path)
    moves: list[Action] = [key("ctrl+home" if top else "ctrl+end"), TypeText(meta["line"] + "\n")]
    if saved:
        await edit_and_save(session, path, *moves)
    else:
        await act(session, *moves)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _edit(task, session, task.metadata["largest"])


@cb.wrong_way
async def edits_the_second_largest(task: cb.Task, session: cb.Session) -> None:
    """The line added to the second largest note."""
    await _edit(task, session, task.metadata["second"])


@cb.wrong_way
async def line_at_the_top(task: cb.Task, session: cb.Session) -> None:
    """The right note, the line added before its first line."""
    await _edit(task, session, task.metadata["largest"], top=True)


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The right note and line, never saved."""
    await _edit(task, session, task.metadata["largest"], saved=False)
