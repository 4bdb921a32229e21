"""writer-append-paragraph: add a given sentence as a new last paragraph of a document open in
LibreOffice Writer, and save it in its own format (``.odt`` or ``.docx``, by variant).

The evaluator reads the saved document in the format its name asks for (``_writer.scored``): every
paragraph as it was, in order, with its style, level and marks (the title a Heading 1, the word in
italics still in italics), then the sentence as one more body paragraph with no formatting of its
own, nothing else in the document (no table, image or comment), and no other file under home changed.
The oracle presses ctrl+end and Enter, types the sentence and saves with ctrl+s.
Wrong ways: ``never_saved`` (typed, not saved), ``joined_to_the_last_paragraph`` (typed at the end
without Enter), ``added_after_the_title`` (a new paragraph, in the wrong place) and ``typed_in_bold``
(the right paragraph, in bold).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, press, type_text
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._writer import body_line, open_writer, plain, scored, seed_lines

NAME = "writer-append-paragraph"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.odt', '.docx']))}"
    lines = seed_lines(rng, rng.randint(2, 5))
    sentence = body_line(rng)
    while any(sentence == plain(line) for line in lines):
        sentence = body_line(rng)
    return cb.Task(
        description=f'The document ~/{path} is open in LibreOffice Writer. Add the sentence "{sentence}" as a '
        "new paragraph at the end of the document, then save it in its current format.",
        metadata={"path": path, "lines": lines, "sentence": sentence},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_writer(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await scored(task, session, [*meta["lines"], meta["sentence"]])]


async def _append(session: cb.Session, sentence: str, *keys: str) -> None:
    """ctrl+end, then ``keys`` one by one (Writer can take a key of a batch before the move), then the sentence."""
    await press(session, "ctrl+end")
    for combo in keys:
        await press(session, combo)
    await type_text(session, sentence)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _append(session, meta["sentence"], "enter")
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The new paragraph typed, and the document never saved."""
    await _append(session, task.metadata["sentence"], "enter")


@cb.wrong_way
async def joined_to_the_last_paragraph(task: cb.Task, session: cb.Session) -> None:
    """The sentence typed at the end of the last paragraph, after a space, with no new paragraph."""
    meta = task.metadata
    await _append(session, " " + meta["sentence"])
    await save(session, meta["path"])


@cb.wrong_way
async def added_after_the_title(task: cb.Task, session: cb.Session) -> None:
    """A new paragraph after the title (ctrl+home, End, Enter) instead of at the end."""
    meta = task.metadata
    for combo in ("ctrl+home", "end", "enter"):
        await press(session, combo)
    await type_text(session, meta["sentence"])
    await save(session, meta["path"])


@cb.wrong_way
async def typed_in_bold(task: cb.Task, session: cb.Session) -> None:
    """The new last paragraph typed with bold on (ctrl+b first)."""
    meta = task.metadata
    await _append(session, meta["sentence"], "enter", "ctrl+b")
    await save(session, meta["path"])
