"""xterm-sort-lines: in a real xterm, write a file's lines in sorted order into a new file.

The evaluator checks the new file holds the lines sorted, and that nothing else under home changed
(a snapshot taken at setup: the source file is still there, in its old order). Wrong ways:
``sorted_in_place`` (the source sorted over itself, then copied to the new file) and
``reverse_order`` (``sort -r``).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    NOUNS,
    OUTPUT_IS_THE_WORK,
    WORDS,
    files_since_setup,
    in_terminal,
    loaders,
    nothing_else_changed,
    output_text,
    same_text,
    shell,
    terminal_over,
    type_text,
    wait_path,
)

NAME = "xterm-sort-lines"
WAIVED = OUTPUT_IS_THE_WORK
FIRST = (
    "ada", "bob", "carla", "dmitri", "elena", "farid", "grace", "hiro", "ines", "jonas", "kemal", "lena", "marco",
    "nadia", "omar", "priya", "quentin", "rosa", "sven", "tara", "ugo", "vera", "wen", "yusuf",
)  # fmt: skip


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    kind = rng.choice(["names", "words"])
    pool = FIRST if kind == "names" else NOUNS
    lines = rng.sample(pool, rng.randint(5, 10))
    source, target = f"{kind}.txt", rng.choice(["sorted.txt", f"{kind}_sorted.txt", "ordered.txt"])
    return cb.Task(
        description=f"In the terminal, write the lines of ~/{folder}/{source} sorted alphabetically (a to z) "
        f"into the new file ~/{folder}/{target}.",
        metadata={"source": f"{folder}/{source}", "target": f"{folder}/{target}", "lines": lines},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, object]) -> str:
    lines = meta["lines"]
    assert isinstance(lines, list)
    return "\n".join(sorted(lines)) + "\n"


setup = terminal_over(lambda meta: {meta["source"]: "\n".join(meta["lines"]) + "\n"})


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    asked = same_text(await output_text(session, after, meta["target"]), expected(meta))
    kept = nothing_else_changed(task, before, after, expect=[meta["target"]])
    return [1.0 if asked and kept else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, f"sort {shell(meta['source'])} > {shell(meta['target'])}", enter=True)
    await wait_path(session, meta["target"], lambda text: same_text(text, expected(meta)))


@cb.wrong_way
async def sorted_in_place(task: cb.Task, session: cb.Session) -> None:
    source, target = shell(task.metadata["source"]), shell(task.metadata["target"])
    await in_terminal(session, f"sort -o {source} {source} && cp {source} {target}")


@cb.wrong_way
async def reverse_order(task: cb.Task, session: cb.Session) -> None:
    source, target = shell(task.metadata["source"]), shell(task.metadata["target"])
    await in_terminal(session, f"sort -r {source} > {target}")
