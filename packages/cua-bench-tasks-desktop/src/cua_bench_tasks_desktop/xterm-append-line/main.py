"""xterm-append-line: in a real xterm, add one line at the end of an existing file, keeping the rest.

The evaluator checks the file holds its old lines then the new one, and that nothing else under
home changed (a snapshot taken at setup; the folder holds a neighbouring file). Wrong ways:
``appended_to_neighbour_too`` (``tee -a`` into both files) and ``neighbour_deleted`` (the
oracle's command, then ``rm`` of the neighbour).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    file_name,
    files_since_setup,
    in_terminal,
    loaders,
    nothing_else_changed,
    output_text,
    same_text,
    sentence,
    shell,
    terminal_over,
    type_text,
    wait_path,
)

NAME = "xterm-append-line"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.log', '.md']))}"
    lines = [sentence(rng) for _ in range(rng.randint(2, 6))]
    line = sentence(rng)
    # A neighbour in the same folder, which must stay as it is.
    folder, name = path.rsplit("/", 1)
    other = file_name(rng, ".txt")
    while other == name:
        other = file_name(rng, ".txt")
    return cb.Task(
        description=f"In the terminal, append the line '{line}' to the end of the file ~/{path}, "
        "keeping its current lines.",
        metadata={
            "path": path,
            "before": "\n".join(lines) + "\n",
            "line": line,
            "other": {f"{folder}/{other}": "\n".join(sentence(rng) for _ in range(rng.randint(1, 3))) + "\n"},
        },
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, str]) -> str:
    return meta["before"] + meta["line"] + "\n"


def command(meta: dict[str, str]) -> str:
    return f"echo {shell(meta['line'])} >> {shell(meta['path'])}"


setup = terminal_over(lambda meta: {meta["path"]: meta["before"], **meta["other"]})


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    text = await output_text(session, after, meta["path"])
    asked = same_text(text, expected(meta))
    kept = nothing_else_changed(task, before, after, expect=[meta["path"]])
    return [1.0 if asked and kept else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, command(meta), enter=True)
    await wait_path(session, meta["path"], lambda text: text == expected(meta))


@cb.wrong_way
async def appended_to_neighbour_too(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    other = next(iter(meta["other"]))
    await in_terminal(session, f"echo {shell(meta['line'])} | tee -a {shell(meta['path'])} {shell(other)}")


@cb.wrong_way
async def neighbour_deleted(task: cb.Task, session: cb.Session) -> None:
    await in_terminal(session, f"{command(task.metadata)} && rm -- {shell(next(iter(task.metadata['other'])))}")
