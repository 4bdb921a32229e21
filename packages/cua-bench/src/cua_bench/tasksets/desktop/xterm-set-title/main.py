"""xterm-set-title: give the xterm window a title (an escape sequence, or xterm's own means); read from the window."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    ADJECTIVES,
    NOUNS,
    loaders,
    shell,
    start,
    type_text,
    window,
)

NAME = "xterm-set-title"


def build(rng: random.Random) -> cb.Task:
    title = f"{rng.choice(ADJECTIVES).capitalize()} {rng.choice(NOUNS)} {rng.randint(2, 99)}"
    return cb.Task(
        description=f"Change the title of the terminal window to exactly: {title}",
        metadata={"title": title},
        max_steps=10,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await start(session, "xterm", title="xterm")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    titles = [info["title"] for info in await session.windows() if info["app"] == "xterm"]
    return [1.0 if task.metadata["title"] in titles else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    title = task.metadata["title"]
    await type_text(session, f"printf '\\033]0;%s\\007' {shell(title)}", enter=True)
    await window(session, title)
