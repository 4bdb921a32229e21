"""xterm-set-title: give the xterm window a title (an escape sequence, or xterm's own means); read from the window.

The evaluator checks that the xterm setup opened carries the title (its window id, and its process
still running: X hands a closed client's window ids to the next one), and that the windows are the
ones setup left (none opened, none closed). Wrong ways: ``new_xterm_with_title``
(a second xterm started with that title), ``replaced_by_new_xterm`` (the same, and the first one
closed) and ``title_then_second_window`` (the oracle's escape, then another xterm opened).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    ADJECTIVES,
    NOUNS,
    TaskError,
    act,
    loaders,
    shell,
    start,
    type_text,
    wait_for,
    window,
)
from cua_core import TypeText

NAME = "xterm-set-title"
PIDFILE = '"$TMPDIR/setup-xterm.pid"'
# That xterm still runs: not gone, and not a zombie its parent has yet to reap (it left X already).
RUNNING = (
    f"p=$(cat {PIDFILE}) && test \"$(cat /proc/$p/comm)\" = xterm && ! grep -q '^State:[[:space:]]*Z' /proc/$p/status"
)


def build(rng: random.Random) -> cb.Task:
    title = f"{rng.choice(ADJECTIVES).capitalize()} {rng.choice(NOUNS)} {rng.randint(2, 99)}"
    return cb.Task(
        description=f"Change the title of the terminal window to exactly: {title}",
        metadata={"title": title},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def command(title: str) -> str:
    return f"printf '\\033]0;%s\\007' {shell(title)}"


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    # The xterm's pid (sh execs it) tells it from a new xterm that got the same window id.
    task.scratch["xterm"] = await start(session, "sh", "-c", f"echo $$ > {PIDFILE}; exec xterm", title="xterm")
    task.scratch["windows"] = sorted(info["id"] for info in await session.windows())


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    if "xterm" not in task.scratch:
        raise TaskError("setup kept no window id of its xterm")
    windows = await session.windows()
    titles = {info["id"]: info["title"] for info in windows}
    running = await session.run_command(RUNNING, timeout=10)
    asked = titles.get(task.scratch["xterm"]) == task.metadata["title"] and running.returncode == 0
    kept = sorted(titles) == task.scratch["windows"]
    return [1.0 if asked and kept else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    title = task.metadata["title"]
    await type_text(session, command(title), enter=True)
    await window(session, title)


async def xterms(session: cb.Session) -> list[dict[str, object]]:
    return [info for info in await session.windows() if info["app"] == "xterm"]


@cb.wrong_way
async def new_xterm_with_title(task: cb.Task, session: cb.Session) -> None:
    title = task.metadata["title"]
    await act(session, TypeText(f"xterm -T {shell(title)} &", press_enter=True))
    await window(session, title)


@cb.wrong_way
async def replaced_by_new_xterm(task: cb.Task, session: cb.Session) -> None:
    title = task.metadata["title"]
    await act(session, TypeText(f"setsid -f xterm -T {shell(title)}; exit", press_enter=True))
    await window(session, title)

    async def alone() -> bool:
        return len(await xterms(session)) == 1

    await wait_for(alone, "the first xterm to close")


@cb.wrong_way
async def title_then_second_window(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await act(session, TypeText("xterm &", press_enter=True))

    async def two() -> bool:
        return len(await xterms(session)) == 2

    await wait_for(two, "a second xterm")
