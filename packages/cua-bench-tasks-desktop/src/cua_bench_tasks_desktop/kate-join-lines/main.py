"""kate-join-lines: join a range of the file's lines into one with Kate's Join Lines, and save.

The instruction names the lines (by number) and Kate's Selection > Join Lines (ctrl+j), which joins
the selected lines with single spaces. The oracle selects the lines with the keyboard, presses ctrl+j,
and saves with ctrl+s.

The evaluator reads the file's bytes (a plain file with one link): the lines before and after the range
exactly as they were and the range as one line, its lines joined by single spaces, and no other file
under home changed but Kate's own (``_kate.KATE_WRITES``).
Wrong ways: ``joins_one_line_too_many`` (the line after the range joined too) and
``joins_without_spaces`` (each line's end deleted by hand: the words run together). Waived:
``forged-write`` (the file is the output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, act, file_name, key, loaders, sentence
from cua_bench_tasks_desktop._kate import open_in_kate, save, scored, select_lines

NAME = "kate-join-lines"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.md']))}"
    lines = [sentence(rng) for _ in range(rng.randint(5, 9))]
    first = rng.randint(0, len(lines) - 3)
    last = rng.randint(first + 1, min(first + 3, len(lines) - 2))
    return cb.Task(
        description=f"The file ~/{path} is open in Kate. Join lines {first + 1} to {last + 1} into a single line "
        "(separated by single spaces) with Kate's Selection > Join Lines, leaving the other lines as they are, "
        "then save the file.",
        metadata={"path": path, "text": "\n".join(lines) + "\n", "first": first, "last": last},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def joined(meta: Meta, first: int, last: int, glue: str = " ") -> bytes:
    lines = meta["text"].split("\n")
    return "\n".join([*lines[:first], glue.join(lines[first : last + 1]), *lines[last + 1 :]]).encode()


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_kate(task, session, {meta["path"]: meta["text"]}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await scored(task, session, meta["path"], [joined(meta, meta["first"], meta["last"])])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, *select_lines(meta["first"], meta["last"]), key("ctrl+j"))
    await save(session, meta["path"])


@cb.wrong_way
async def joins_one_line_too_many(task: cb.Task, session: cb.Session) -> None:
    """The range and the line after it joined, and saved."""
    meta = task.metadata
    await act(session, *select_lines(meta["first"], meta["last"] + 1), key("ctrl+j"))
    await save(session, meta["path"])


@cb.wrong_way
async def joins_without_spaces(task: cb.Task, session: cb.Session) -> None:
    """Each line of the range but the last ended with End and Delete: the lines run together, no space."""
    meta = task.metadata
    ends = [step for _ in range(meta["last"] - meta["first"]) for step in (key("end"), key("delete"))]
    await act(session, key("ctrl+home"), *[key("down")] * meta["first"], *ends)
    await save(session, meta["path"])
