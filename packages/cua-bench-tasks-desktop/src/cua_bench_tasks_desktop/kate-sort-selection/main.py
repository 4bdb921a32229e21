"""kate-sort-selection: sort only a range of the file's lines with Kate's Sort Selected Text, and save.

The instruction names the lines (by number) and Kate's Tools > Scripts > Editing > Sort Selected Text
(the ``sort`` command of Kate's command line). The oracle selects the lines with the keyboard, runs
``sort`` from Kate's command line (F7, Tools > Switch to Command Line), and saves with ctrl+s.

The lines are single lowercase words, so every collation orders them as Python does. The evaluator
reads the file's bytes (a plain file with one link): the lines above and below the range exactly as
they were, the range sorted A to Z, and no other file under home changed but Kate's own
(``_kate.KATE_WRITES``). Wrong ways: ``sorts_the_whole_file`` (ctrl+a, then sort) and
``sorts_one_line_too_many`` (the line after the range sorted in too: every seed's next line would move).
Waived: ``forged-write`` (the file is the output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import ADJECTIVES, NOUNS, OUTPUT_IS_THE_WORK, WORDS, act, file_name, key, loaders
from cua_bench_tasks_desktop._kate import command, open_in_kate, save, scored, select_lines

NAME = "kate-sort-selection"
WAIVED = OUTPUT_IS_THE_WORK
POOL = sorted({*NOUNS, *ADJECTIVES, *WORDS})


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.list']))}"
    while True:
        words = rng.sample(POOL, rng.randint(7, 12))
        first = rng.randint(0, 3)
        last = rng.randint(first + 2, len(words) - 2)
        chunk = words[first : last + 1]
        wanted = words[:first] + sorted(chunk) + words[last + 1 :]
        if chunk != sorted(chunk) and sorted(words) != wanted and words[last + 1] < max(chunk):
            break
    return cb.Task(
        description=f"The file ~/{path} is open in Kate. Sort lines {first + 1} to {last + 1} alphabetically "
        "(A to Z), leaving every other line where it is, with Kate's Tools > Scripts > Editing > Sort Selected "
        "Text, then save the file.",
        metadata={"path": path, "text": "\n".join(words) + "\n", "first": first, "last": last},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: Meta) -> bytes:
    words = meta["text"].split("\n")
    first, last = meta["first"], meta["last"]
    return "\n".join(words[:first] + sorted(words[first : last + 1]) + words[last + 1 :]).encode()


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_kate(task, session, {meta["path"]: meta["text"]}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, task.metadata["path"], [expected(task.metadata)])


async def _sort(session: cb.Session, meta: Meta, *, everything: bool = False, extra: int = 0) -> None:
    await act(session, *([key("ctrl+a")] if everything else select_lines(meta["first"], meta["last"] + extra)))
    await command(session, "sort")
    await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _sort(session, task.metadata)


@cb.wrong_way
async def sorts_the_whole_file(task: cb.Task, session: cb.Session) -> None:
    """Every line selected (ctrl+a) and sorted, and saved."""
    await _sort(session, task.metadata, everything=True)


@cb.wrong_way
async def sorts_one_line_too_many(task: cb.Task, session: cb.Session) -> None:
    """The range and the line after it sorted (a selection one line too long), and saved."""
    await _sort(session, task.metadata, extra=1)
