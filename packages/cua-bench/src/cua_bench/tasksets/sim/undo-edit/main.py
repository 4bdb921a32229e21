"""undo-edit: a file open in the editor was damaged by edits that were then saved; undo them
(ctrl+z) and save, so the file is as it was.

Easy: one damaging edit. Medium: two. Hard: three, in a longer file, with a second editor open
on another file that must stay unchanged.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.sim import EditorApp
from cua_bench.sim.events import KeyEvent, char_event
from cua_bench.tasksets.sim._desktop_common import (
    DOCS,
    Screen,
    arrange,
    desktop,
    file_name,
    files,
    fresh,
    loaders,
    paragraph,
    seed_files,
    token,
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
        "was saved. Undo the damaging edits (ctrl+z or Edit > Undo) so that the text is back to what it was, then "
        "save the file with ctrl+s. Do not change any other file."
    )
    metadata = {"files": contents, "path": f"{DOCS}/{name}", "other": other, "damage": damage,
                "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=10)


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


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if files(desktop(session)) == task.metadata["files"] else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
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
    await screen.keys("ctrl", "s")
