"""writer-replace-word: replace every occurrence of a word in a document open in LibreOffice Writer
with another word, and save it in its own format (``.odt`` or ``.docx``, by variant).

The word occurs at least twice, always lower-case and never inside another word, sometimes once in
italics (a replaced word keeps the formatting of the word it replaces, as Writer's Replace does); the
new word is of another length. The evaluator reads the saved document in the format its name asks
for (``_writer.scored``): every paragraph with the word replaced and nothing else changed, each with
its style, level and marks, nothing added to the document, and no other file under home changed.
The oracle uses Edit > Find and Replace (ctrl+h): the word, the new word (alt+p), Replace All (alt+l),
Close (alt+c), then ctrl+s; it watches the status bar's character count change before closing the dialog.
Wrong ways: ``replaces_only_the_first`` (the first occurrence found and retyped, the others left),
``never_saved`` (Replace All, not saved) and ``oracle_then_deletes_the_last_paragraph``.
"""

from __future__ import annotations

import random
import re

import cua_bench as cb
from cua_bench_tasks_desktop._common import NOUNS, OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, press, type_text
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._writer import VOCABULARY, find, open_writer, replace_all, scored, seed_lines, words_of

NAME = "writer-replace-word"
WAIVED = OUTPUT_IS_THE_WORK
SAFE = sorted(n for n in NOUNS if not any(n in other for other in (VOCABULARY | {w.lower() for w in WORDS}) - {n}))
"""Nouns no other word of a document contains (Replace All replaces within words too)."""
NEW_WORDS = ("purple", "walnut", "copper", "thunder", "velvet", "saffron", "glacier", "juniper", "cobalt", "maple")


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.odt', '.docx']))}"
    lines = seed_lines(rng, rng.randint(3, 6))
    old = rng.choice([w for w in SAFE if w not in words_of(lines[:1])])
    for index in rng.sample(range(1, len(lines)), rng.randint(2, min(4, len(lines) - 1))):
        if not re.search(rf"\b{old}\b", lines[index]):
            words_at = lines[index].split(" ")
            spot = 5 if "<i>" in words_at[2] else 2
            words_at[spot] = old
            lines[index] = " ".join(words_at)
    # Of another length: the status bar's count of characters shows the oracle the replacements done.
    new = rng.choice([w for w in NEW_WORDS if w not in words_of(lines) and len(w) != len(old)])
    return cb.Task(
        description=f"The document ~/{path} is open in LibreOffice Writer. Replace every occurrence of the word "
        f"'{old}' with '{new}', then save the document in its current format.",
        metadata={"path": path, "lines": lines, "old": old, "new": new},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, object]) -> list[str]:
    lines, old, new = meta["lines"], meta["old"], meta["new"]
    assert isinstance(lines, list) and isinstance(old, str) and isinstance(new, str)
    return [re.sub(rf"\b{old}\b", new, line) for line in lines]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_writer(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, expected(task.metadata))]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await replace_all(session, meta["path"], meta["old"], meta["new"])
    await save(session, meta["path"])


@cb.wrong_way
async def replaces_only_the_first(task: cb.Task, session: cb.Session) -> None:
    """The first occurrence found (Find Next), the new word typed over it, the others left."""
    meta = task.metadata
    await find(session, meta["path"], meta["old"])
    await type_text(session, meta["new"])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Every occurrence replaced, and the document never saved."""
    meta = task.metadata
    await replace_all(session, meta["path"], meta["old"], meta["new"])


@cb.wrong_way
async def oracle_then_deletes_the_last_paragraph(task: cb.Task, session: cb.Session) -> None:
    """Every occurrence replaced, then the last paragraph's text selected (ctrl+end, shift+home) and deleted
    with the paragraph break before it."""
    meta = task.metadata
    await replace_all(session, meta["path"], meta["old"], meta["new"])
    for combo in ("ctrl+end", "shift+home", "backspace", "backspace"):
        await press(session, combo)
    await save(session, meta["path"])
