"""xterm-create-file: in a real xterm, create a file in a given folder holding one given line.

The evaluator checks the new file holds exactly the line, and that nothing else under home changed
(a snapshot taken at setup: the neighbouring file is still there, unchanged). Wrong ways:
``neighbour_deleted`` (the oracle's command, then ``rm`` of the neighbour) and
``neighbour_moved_over`` (the neighbour renamed to the new name and overwritten).
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

NAME = "xterm-create-file"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    name = file_name(rng, rng.choice([".txt", ".md", ".log"]))
    text = sentence(rng)
    other = file_name(rng, ".txt")
    while other == name:
        other = file_name(rng, ".txt")
    return cb.Task(
        description=f"In the terminal, create the file ~/{folder}/{name} containing exactly the line: {text}",
        metadata={"folder": folder, "name": name, "text": text, "other": {f"{folder}/{other}": sentence(rng) + "\n"}},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def command(meta: dict[str, str]) -> str:
    return f"echo {shell(meta['text'])} > {shell(meta['folder'] + '/' + meta['name'])}"


setup = terminal_over(lambda meta: meta["other"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    path = f"{meta['folder']}/{meta['name']}"
    asked = same_text(await output_text(session, after, path), meta["text"])
    kept = nothing_else_changed(task, before, after, expect=[path])
    return [1.0 if asked and kept else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    path = f"{meta['folder']}/{meta['name']}"
    await type_text(session, command(meta), enter=True)
    await wait_path(session, path, lambda text: same_text(text, meta["text"]))


@cb.wrong_way
async def neighbour_deleted(task: cb.Task, session: cb.Session) -> None:
    await in_terminal(session, f"{command(task.metadata)} && rm -- {shell(next(iter(task.metadata['other'])))}")


@cb.wrong_way
async def neighbour_moved_over(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    path = shell(f"{meta['folder']}/{meta['name']}")
    await in_terminal(session, f"mv -- {shell(next(iter(meta['other'])))} {path} && {command(meta)}")


@cb.wrong_way
async def blank_lines_after(task: cb.Task, session: cb.Session) -> None:
    """The line, then three blank lines: not "exactly the line"."""
    meta = task.metadata
    path = f"{meta['folder']}/{meta['name']}"
    await in_terminal(session, f"printf '%s\\n\\n\\n\\n' {shell(meta['text'])} > {shell(path)}")
