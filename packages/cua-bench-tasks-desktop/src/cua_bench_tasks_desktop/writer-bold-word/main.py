"""writer-bold-word: make one word of a document open in LibreOffice Writer bold (the word occurs
once), and save it in its own format (``.odt`` or ``.docx``, by variant).

The evaluator reads the saved document in the format its name asks for (``_writer.scored``): every
paragraph's text, style and level as they were, exactly that word's characters bold and nothing else
bold, the italic word of the seed still italic and nothing else marked, nothing added to the document,
and no other file under home changed. Bold on a space next to the word does not show and is not told
apart (``_writer.markup``), so selecting the word with the space after it is not held against the agent.
The oracle selects the word with Find and Replace's Find Next, closes the dialog, presses ctrl+b and saves.
Wrong ways: ``bolds_the_word_and_the_next`` (the selection stretched over the following word),
``bolds_the_whole_paragraph``, ``italic_instead`` (ctrl+i) and ``never_saved``.
"""

from __future__ import annotations

import random
import re

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, press
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._writer import find, open_writer, plain, scored, seed_lines

NAME = "writer-bold-word"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.odt', '.docx']))}"
    while True:
        lines = seed_lines(rng, rng.randint(2, 5))
        text = "\n".join(plain(line) for line in lines).lower()
        # Words of the body that occur once in the whole text, even inside other words (the search
        # finds text within words, in any case), and are not the word already in italics.
        candidates = sorted(
            {
                word
                for line in lines[1:]
                for word in re.findall(r"(?<![<\w])[a-z]{4,}(?![>\w])", line)
                if text.count(word) == 1 and f"<i>{word}</i>" not in line
            }
        )
        if candidates:
            break
    word = rng.choice(candidates)
    index = next(i for i, line in enumerate(lines) if i and re.search(rf"\b{word}\b", line))
    return cb.Task(
        description=f"The document ~/{path} is open in LibreOffice Writer. Make the word '{word}' bold (it occurs "
        "once; nothing else should change), then save the document in its current format.",
        metadata={"path": path, "lines": lines, "word": word, "index": index},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, object]) -> list[str]:
    lines, word, index = meta["lines"], meta["word"], meta["index"]
    assert isinstance(lines, list) and isinstance(word, str) and isinstance(index, int)
    wanted = list(lines)
    wanted[index] = re.sub(rf"\b{word}\b", f"<b>{word}</b>", wanted[index], count=1)
    return wanted


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_writer(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, expected(task.metadata))]


async def _found_then(session: cb.Session, meta: dict[str, str], *combos: str, saved: bool = True) -> None:
    """The word selected (Find Next), ``combos`` pressed one by one, and saved (unless not ``saved``)."""
    await find(session, meta["path"], meta["word"])
    for combo in combos:
        await press(session, combo)
    if saved:
        await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _found_then(session, task.metadata, "ctrl+b")


@cb.wrong_way
async def bolds_the_word_and_the_next(task: cb.Task, session: cb.Session) -> None:
    """The word selected, the selection stretched over the next word (ctrl+shift+right twice), made bold."""
    await _found_then(session, task.metadata, "ctrl+shift+right", "ctrl+shift+right", "ctrl+b")


@cb.wrong_way
async def bolds_the_whole_paragraph(task: cb.Task, session: cb.Session) -> None:
    """The word's whole paragraph (one line) selected with Home and shift+End, made bold."""
    await _found_then(session, task.metadata, "home", "shift+end", "ctrl+b")


@cb.wrong_way
async def italic_instead(task: cb.Task, session: cb.Session) -> None:
    """The word selected and made italic (ctrl+i), not bold."""
    await _found_then(session, task.metadata, "ctrl+i")


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The word made bold, and the document never saved."""
    await _found_then(session, task.metadata, "ctrl+b", saved=False)
