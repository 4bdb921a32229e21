"""mousepad-edit-word: in a file open in Mousepad, replace one word (it occurs once) and save.

The evaluator checks the file's whole text (only that word changed) and that no other file under home
changed.
Wrong ways: ``types_before_the_word`` (the new word typed in front of the old one, which stays) and
``oracle_then_deletes_the_last_line``.
"""

from __future__ import annotations

import random
import re

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    ADJECTIVES,
    NOUNS,
    OUTPUT_IS_THE_WORK,
    WORDS,
    caret_to,
    edit_and_save,
    file_name,
    key,
    loaders,
    open_in_mousepad,
    saved_text_is,
    sentence,
)
from cua_core import TypeText

NAME = "mousepad-edit-word"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng)}"
    while True:
        lines = [sentence(rng) for _ in range(rng.randint(3, 7))]
        text = "\n".join(lines) + "\n"
        words = [w for w in set(text.split()) if len(re.findall(rf"\b{w}\b", text)) == 1 and text.count(w) == 1]
        words = sorted(w for w in words if w != "the")
        if words:
            break
    old = rng.choice(words)
    new = rng.choice([w for w in (*NOUNS, *ADJECTIVES) if w not in text])
    return cb.Task(
        description=f"The file ~/{path} is open in Mousepad. Replace the word '{old}' (it occurs once) with "
        f"'{new}', then save the file.",
        metadata={"path": path, "text": text, "old": old, "new": new},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_mousepad(task, session, meta["text"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await saved_text_is(task, session, meta["text"].replace(meta["old"], meta["new"]))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    moves = caret_to(meta["text"], meta["text"].index(meta["old"]), select=len(meta["old"]))
    await edit_and_save(session, meta["path"], *moves, TypeText(meta["new"]))


@cb.wrong_way
async def types_before_the_word(task: cb.Task, session: cb.Session) -> None:
    """The new word typed in front of the old one, which is left in place."""
    meta = task.metadata
    await edit_and_save(
        session, meta["path"], *caret_to(meta["text"], meta["text"].index(meta["old"])), TypeText(meta["new"] + " ")
    )


@cb.wrong_way
async def oracle_then_deletes_the_last_line(task: cb.Task, session: cb.Session) -> None:
    """The word replaced, then the file's last line deleted."""
    await solve(task, session)
    await edit_and_save(session, task.metadata["path"], key("ctrl+end"), key("shift+up"), key("delete"))
