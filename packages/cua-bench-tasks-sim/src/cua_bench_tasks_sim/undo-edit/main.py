"""undo-edit: a file open in the editor was damaged by edits that were then saved; undo them
(ctrl+z) and save, so the file is as it was.

Easy: one damaging edit. Medium: two. Hard: three, in a longer file, with a second editor open
on another file that must stay unchanged.

The evaluator checks that the file holds its text from before the damage and, against what setup
kept, that nothing else in the file system changed, and, from the desktop's records, that the
named editor window (its id kept at setup) saved it last. The instruction names undo as the way
back but does not require it (a deleted line or a word pasted over cannot be typed back without
knowing it). Chance 0.

Wrong ways: ``undo_without_saving``, ``undo_into_a_copy`` (the repaired text saved under another
name, the file still damaged), ``oracle_then_save_a_copy`` (a stray backup left beside it) and
``restored_then_saved_from_a_new_editor`` (the repaired text pasted into another editor, saved
from there).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.sim import EditorApp, KeyEvent, char_event
from cua_bench_tasks_sim._desktop_common import (
    DOCS,
    Screen,
    arrange,
    desktop,
    editors_show_saved,
    file_changes,
    file_name,
    fresh,
    keep,
    kept,
    loaders,
    other_windows_changed,
    paragraph,
    seed_files,
    snapshot_files,
    token,
    written_by,
)

FAMILY = "undo-edit"
SIZES = {"easy": (1, 5), "medium": (2, 9), "hard": (3, 16)}
DAMAGE = {"delete": "a line was deleted", "type": "stray text was typed", "paste": "a word was pasted over"}


def build(rng: random.Random, difficulty: str) -> cb.Task:
    edits, lines = SIZES[difficulty]
    name = file_name(rng, ".txt")
    contents = {f"{DOCS}/{name}": paragraph(rng, lines) + "\n"}
    other = f"{DOCS}/{file_name(rng, '.md')}" if difficulty == "hard" else None
    if other:
        contents[other] = paragraph(rng, 4) + "\n"
    damage = [(rng.choice(list(DAMAGE)), rng.random(), token(rng, 1, rng.randint(3, 8)).lower()) for _ in range(edits)]
    what = ", then ".join(DAMAGE[kind] for kind, _, _ in damage)
    description = (
        f"The editor window '{name} - Editor' shows {DOCS}/{name}. Recent edits damaged it ({what}) and the damage "
        "was saved. Put the text back exactly as it was before those edits (the editor's undo, ctrl+z or Edit > Undo, "
        "takes them back), then save the file. Do not change any other file or window."
    )
    metadata = {"files": contents, "path": f"{DOCS}/{name}", "other": other, "damage": damage,
                "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=10, chance=0.0)


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    seed_files(sim, meta["files"])
    opened = [await session.launch("editor", path=meta["other"], width=460, height=320)] if meta["other"] else []
    opened.append(await session.launch("editor", path=meta["path"], width=600, height=420))
    app = sim.get_window(opened[-1]).data["app"]
    assert isinstance(app, EditorApp)
    area, buffer = app.area, app.area.buffer
    for kind, where, junk in meta["damage"]:  # edits through the widget, so that undo knows them
        text = buffer.text
        row = int(where * (len(buffer.lines) - 1))
        start = buffer.index_of(row, 0)
        if kind == "delete" and len(buffer.lines) > 2:
            buffer.select(start, start + len(buffer.lines[row]) + 1)
            area.on_key(KeyEvent("delete"))
        elif kind == "paste":
            buffer.select_word(start)
            sim.clipboard = junk
            area.on_key(KeyEvent("v", frozenset({"ctrl"})))
        else:
            buffer.set_caret(start + len(buffer.lines[row]) // 2)
            for char in f" {junk} ":
                area.on_key(char_event(char))
        assert buffer.text != text
    sim.clipboard = ""
    app.save()
    arrange(random.Random(meta["seed"]), sim, [sim.get_window(i) for i in opened])
    task.scratch["editor"] = opened[-1]
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    sim = desktop(session)
    path, now = task.metadata["path"], snapshot_files(sim)
    repaired = now.get(path) == task.metadata["files"][path]
    if not repaired or file_changes(kept(task, "files"), now, expect=[path]):
        return [0.0]
    if other_windows_changed(task, sim, allow=[kept(task, "editor")]):  # the other editors stay untouched
        return [0.0]
    saved = written_by(sim, path, kept(task, "editor"))
    return [1.0 if saved is not None and saved.text == now[path] and editors_show_saved(sim, path) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = await _undo_all(task, session)
    await screen.keys("ctrl", "s")


async def _undo_all(task: cb.Task, session: cb.Session) -> Screen:
    screen = Screen(session)
    name = task.metadata["path"].rsplit("/", 1)[1]
    editor = await screen.front(await screen.window(f"{name} - Editor"))
    before = None
    while True:  # undo until the text stops changing: back at the text as it was opened
        text = (await screen.find(editor, "textbox", "Editor"))["value"]
        if text == before:
            break
        before = text
        await screen.keys("ctrl", "z")
    return screen


@cb.wrong_way
async def undo_without_saving(task: cb.Task, session: cb.Session) -> None:
    await _undo_all(task, session)


@cb.wrong_way
async def undo_into_a_copy(task: cb.Task, session: cb.Session) -> None:
    screen = await _undo_all(task, session)
    await screen.save_as(task.metadata["path"].replace(".txt", "-restored.txt"))


@cb.wrong_way
async def oracle_then_save_a_copy(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await Screen(session).save_as(task.metadata["path"] + ".bak")


@cb.wrong_way
async def restored_then_saved_from_a_new_editor(task: cb.Task, session: cb.Session) -> None:
    """Undone in the named window, then its text copied into a new editor (File > New) and saved over
    the file from there: the named window never saves."""
    screen = await _undo_all(task, session)
    for key in ("a", "c", "n", "v"):
        await screen.keys("ctrl", key)
    await screen.save_as(task.metadata["path"])
