"""kate-uppercase-lines: turn a range of lines of the file open in Kate to upper case, and save.

The instruction names the lines (by number) and Kate's Selection > Capitalization > Uppercase. The oracle
selects the lines with the keyboard (ctrl+home, down to the first, shift+down to the last, shift+end),
presses ctrl+u (Uppercase), and saves with ctrl+s, waiting for Kate's title to lose its ``*``.

The evaluator reads the file's bytes (a plain file with one link, strict UTF-8): exactly the seed with
those lines upper-cased and every other line as it was (the seed's final newline kept, no line added),
and no other file under home changed but Kate's own settings and recent lists (``_kate.KATE_WRITES``).
Wrong ways: ``uppercases_the_whole_file`` (ctrl+a first) and ``capitalizes_instead`` (Selection >
Capitalization > Capitalize, ctrl+alt+u: only the first letters). Waived: ``forged-write`` (the file is
the output asked for; Kate's own terminal panel could write it as well).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, act, file_name, key, loaders, sentence
from cua_bench_tasks_desktop._kate import open_in_kate, save, scored, select_lines

NAME = "kate-uppercase-lines"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.md']))}"
    lines = [sentence(rng) for _ in range(rng.randint(5, 9))]
    first = rng.randint(0, len(lines) - 2)
    last = rng.randint(first, min(first + 3, len(lines) - 2))
    span = (
        f"line {first + 1} (and only that line)"
        if first == last
        else f"lines {first + 1} to {last + 1} (and only those)"
    )
    return cb.Task(
        description=f"The file ~/{path} is open in Kate. Convert {span} "
        "to upper case with Kate's Selection > Capitalization > Uppercase, then save the file.",
        metadata={"path": path, "text": "\n".join(lines) + "\n", "first": first, "last": last},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, object]) -> bytes:
    lines = str(meta["text"]).split("\n")
    first, last = int(str(meta["first"])), int(str(meta["last"]))
    return "\n".join(line.upper() if first <= n <= last else line for n, line in enumerate(lines)).encode()


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_kate(task, session, {meta["path"]: meta["text"]}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, task.metadata["path"], [expected(task.metadata)])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, *select_lines(meta["first"], meta["last"]), key("ctrl+u"))
    await save(session, meta["path"])


@cb.wrong_way
async def uppercases_the_whole_file(task: cb.Task, session: cb.Session) -> None:
    """Everything selected (ctrl+a) and upper-cased, and saved."""
    await act(session, key("ctrl+a"), key("ctrl+u"))
    await save(session, task.metadata["path"])


@cb.wrong_way
async def capitalizes_instead(task: cb.Task, session: cb.Session) -> None:
    """The right lines, Capitalize (ctrl+alt+u: each word's first letter) instead of Uppercase, saved."""
    meta = task.metadata
    await act(session, *select_lines(meta["first"], meta["last"]), key("ctrl+alt+u"))
    await save(session, meta["path"])
