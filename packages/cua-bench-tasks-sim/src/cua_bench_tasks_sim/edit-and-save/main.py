"""edit-and-save: change one word or one line of a text file in the editor and save it.

Easy: the file is already open and short. Medium: it must first be opened from the file browser.
Hard: a longer file among look-alike names, and a whole line to replace.

The evaluator checks, against what setup kept, that the file holds exactly its old text with the
one replacement and that nothing else in the file system changed (every other file and its text,
every folder). The instruction names no way to save (ctrl+s and File > Save do the same). Chance 0.

Wrong ways: ``edit_without_saving``, ``save_as_a_copy`` (the edit saved under another name, the
file itself unchanged), ``oracle_then_delete_last_line`` (the edit, and the last line gone) and
``oracle_then_save_a_copy`` (a stray copy left beside the file).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._desktop_common import (
    DOCS,
    Screen,
    arrange,
    desktop,
    editors_show_saved,
    file_changes,
    file_name,
    folder_files,
    fresh,
    keep,
    kept,
    line,
    loaders,
    seed_files,
    snapshot_files,
)
from cua_core import Action, KeyPress, TypeText

FAMILY = "edit-and-save"
NEW_WORDS = [
    "purple",
    "walnut",
    "copper",
    "meadow",
    "thunder",
    "velvet",
    "saffron",
    "glacier",
    "harbour",
    "maple",
    "cobalt",
    "juniper",
]
LINES = {"easy": 4, "medium": 8, "hard": 16}


def build(rng: random.Random, difficulty: str) -> cb.Task:
    lines: list[str] = []
    while len(lines) < LINES[difficulty]:
        text = line(rng)
        if text not in lines:
            lines.append(text)
    text = "\n".join(lines) + "\n"
    name = file_name(rng, ".txt")
    index = rng.randrange(len(lines))
    words = [w.strip(".") for w in lines[index].split() if text.count(w.strip(".")) == 1]
    if difficulty == "hard" or rng.random() < 0.3 or not words:
        old = lines[index]
        new = f"{line(rng)[:-1]} and {rng.choice(NEW_WORDS)}."
        what = f"Replace the whole line that reads '{old}' with '{new}'"
    else:
        old = rng.choice(words)
        new = rng.choice([w for w in NEW_WORDS if w not in text])
        what = f"Replace the word '{old}' with '{new}'"
    contents = {f"{DOCS}/{name}": text}
    if difficulty != "easy":
        contents.update(folder_files(rng, DOCS, 2 if difficulty == "medium" else 8, name, [name]))
    where = "is open in the editor" if difficulty == "easy" else "is in the Documents folder; open it in the editor"
    description = f"The file {DOCS}/{name} {where}. {what} (it occurs once), then save the file."
    metadata = {"files": contents, "name": name, "old": old, "new": new, "opened": difficulty == "easy",
                "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=15, chance=0.0)


load_train, load_test = loaders(FAMILY, build)
WAIVED = {
    "untouched-window-closed": (
        "the one window setup opens is the editor or file browser the edit is done in: closed after the save,"
        " it holds nothing the task asks to keep (the saved file is the work; closed before, nothing is "
        "saved)"
    ),
}


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    seed_files(sim, meta["files"])
    app = ("editor", {"path": f"{DOCS}/{meta['name']}"}) if meta["opened"] else ("files", {"folder": DOCS})
    arrange(random.Random(meta["seed"]), sim, [sim.get_window(await session.launch(app[0], **app[1]))])
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    sim = desktop(session)
    before, now = kept(task, "files"), snapshot_files(sim)
    path = f"{DOCS}/{meta['name']}"
    edited = now.get(path) == before[path].replace(meta["old"], meta["new"], 1)
    return [1.0 if edited and not file_changes(before, now, expect=[path]) and editors_show_saved(sim, path) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _edit(Screen(session), task.metadata, KeyPress(("ctrl", "s")))


async def _edit(screen: Screen, meta: dict[str, Any], *then: Action) -> None:
    """Open the file if it is not open, select the old text with the keyboard, type the new, then ``then``."""
    if not meta["opened"]:
        browser = await screen.open_in_browser([])
        await screen.click(await screen.list_item(browser, "Files", meta["name"]), clicks=2)
    editor = await screen.front(await screen.window(f"{meta['name']} - Editor"))
    text = (await screen.find(editor, "textbox", "Editor"))["value"]
    start = text.index(meta["old"])
    row = text.count("\n", 0, start)
    col = start - (text.rfind("\n", 0, start) + 1)
    moves: list[Action] = [KeyPress(("ctrl", "home")), *[KeyPress(("down",))] * row, KeyPress(("home",))]
    moves += [KeyPress(("right",))] * col + [KeyPress(("shift", "right"))] * len(meta["old"])
    await screen.act(*moves, TypeText(meta["new"]), *then)


@cb.wrong_way
async def edit_without_saving(task: cb.Task, session: cb.Session) -> None:
    await _edit(Screen(session), task.metadata)


@cb.wrong_way
async def save_as_a_copy(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _edit(screen, task.metadata)
    await screen.save_as(f"{DOCS}/copy of {task.metadata['name']}")


@cb.wrong_way
async def oracle_then_delete_last_line(task: cb.Task, session: cb.Session) -> None:
    last_line = (KeyPress(("ctrl", "end")), KeyPress(("up",)), KeyPress(("home",)), KeyPress(("shift", "ctrl", "end")))
    await _edit(Screen(session), task.metadata, *last_line, KeyPress(("backspace",)), KeyPress(("ctrl", "s")))


@cb.wrong_way
async def oracle_then_save_a_copy(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await Screen(session).save_as(f"{DOCS}/copy of {task.metadata['name']}")
