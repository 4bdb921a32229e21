"""xterm-count-matches: in a real xterm, count a log's lines that contain a word and save the number."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    NOUNS,
    loaders,
    read_text,
    shell,
    start,
    type_text,
    wait_path,
    write_files,
)

NAME = "xterm-count-matches"
LEVELS = ("INFO", "DEBUG", "WARNING", "ERROR")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(["logs", "server", "var", "reports"])
    log = rng.choice(["app.log", "server.log", "events.log", "daemon.log"])
    level = rng.choice(["WARNING", "ERROR"])
    lines = []
    for second in range(rng.randint(12, 30)):
        chosen = rng.choice(LEVELS)
        lines.append(
            f"2031-05-0{rng.randint(1, 9)} 10:{second:02d}:00 {chosen} {rng.choice(NOUNS)} {rng.randint(1, 999)}"
        )
    if not any(level in line for line in lines):
        lines[rng.randrange(len(lines))] = f"2031-05-01 11:00:00 {level} {rng.choice(NOUNS)} 1"
    count = sum(level in line for line in lines)
    target = rng.choice(["count.txt", f"{level.lower()}s.txt", "answer.txt"])
    return cb.Task(
        description=f"In the terminal, count how many lines of ~/{folder}/{log} contain the word {level}, and "
        f"write just that number into the new file ~/{folder}/{target}.",
        metadata={
            "log": f"{folder}/{log}",
            "target": f"{folder}/{target}",
            "level": level,
            "count": count,
            "text": "\n".join(lines) + "\n",
        },
        max_steps=10,
    )


load_train, load_test = loaders(NAME, build)


def right(text: str | None, count: int) -> bool:
    return text is not None and text.strip() == str(count)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, {task.metadata["log"]: task.metadata["text"]})
    await start(session, "xterm")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if right(await read_text(session, task.metadata["target"]), task.metadata["count"]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, f"grep -c {meta['level']} {shell(meta['log'])} > {shell(meta['target'])}", enter=True)
    await wait_path(session, meta["target"], lambda text: right(text, meta["count"]))
