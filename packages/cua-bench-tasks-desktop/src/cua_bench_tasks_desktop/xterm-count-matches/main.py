"""xterm-count-matches: in a real xterm, count a log's lines that contain a word and save the number.

The evaluator checks the new file holds just the number, and that nothing else under home changed
(a snapshot taken at setup: the log is still there, unchanged). Wrong ways: ``log_filtered_in_place``
(the log cut down to the matching lines, then its lines counted: the right number, the log lost)
and ``all_lines_counted`` (``wc -l`` of the whole log).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    NOUNS,
    OUTPUT_IS_THE_WORK,
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

NAME = "xterm-count-matches"
WAIVED = OUTPUT_IS_THE_WORK
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
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def right(text: str | None, count: int) -> bool:
    return same_text(text, str(count))


setup = terminal_over(lambda meta: {meta["log"]: meta["text"]})


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    asked = right(await output_text(session, after, meta["target"]), meta["count"])
    kept = nothing_else_changed(task, before, after, expect=[meta["target"]])
    return [1.0 if asked and kept else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_text(session, f"grep -c {meta['level']} {shell(meta['log'])} > {shell(meta['target'])}", enter=True)
    await wait_path(session, meta["target"], lambda text: right(text, meta["count"]))


@cb.wrong_way
async def log_filtered_in_place(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    log, target = shell(meta["log"]), shell(meta["target"])
    await in_terminal(session, f"grep {meta['level']} {log} > {log}.new; mv {log}.new {log}; wc -l < {log} > {target}")


@cb.wrong_way
async def all_lines_counted(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await in_terminal(session, f"wc -l < {shell(meta['log'])} > {shell(meta['target'])}")
