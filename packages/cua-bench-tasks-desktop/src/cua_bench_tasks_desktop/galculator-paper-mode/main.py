"""galculator-paper-mode: switch galculator to paper mode and work out a few sums there, in order.

galculator starts in basic mode. The oracle chooses View > Paper Mode (menus found in the accessibility
tree), then types each expression into the paper's entry with Enter, waiting for the tape to grow by
the expression and its result each time.

The evaluator reads galculator's live tape from the accessibility tree at evaluation time: the window
must be in paper mode and its tape must be exactly each expression (spaces aside) followed by its value,
in the order asked, nothing more. The tape records what was entered, so a value worked out elsewhere
and typed in shows as itself, not as the expression. galculator must be open, and no file under home
may have changed.
Wrong ways: ``results_typed`` (each value typed instead of its expression) and ``last_one_missing``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calculator import calculator, choose, keys, mode, open_galculator, tape, worked_out
from cua_bench_tasks_desktop._common import act, files_since_setup, key, loaders, nothing_else_changed, wait_for

NAME = "galculator-paper-mode"
OPERATORS = ("+", "-", "*")


def build(rng: random.Random) -> cb.Task:
    sums = []
    for _ in range(rng.randint(2, 3)):
        terms = [str(rng.randint(2, 999)) for _ in range(rng.randint(2, 3))]
        expression = terms[0] + "".join(f"{rng.choice(OPERATORS)}{term}" for term in terms[1:])
        sums.append([expression, worked_out(expression)])
    shown = ", then ".join(expression for expression, _ in sums)
    return cb.Task(
        description=f"galculator is open. Switch it to Paper Mode (View menu) and, in paper mode, work out {shown}, "
        "one entry each, in this order.",
        metadata={"sums": sums},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def wanted(sums: list[list[object]]) -> list[str]:
    return [str(cell) for row in sums for cell in row]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_galculator(task, session, "basic")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    window = await calculator(session)
    rows = tape(window) if window is not None else None
    shown = [row.replace(" ", "") for row in rows] if rows is not None else None
    ok = window is not None and mode(window) == "paper" and shown == wanted(task.metadata["sums"])
    if not ok:
        task.explain(f"the tape reads {shown}, not {wanted(task.metadata['sums'])}")
    return [1.0 if ok and nothing_else_changed(task, before, after) else 0.0]


async def to_paper(session: cb.Session) -> None:
    await choose(session, "View", "Paper Mode")

    async def paper() -> bool:
        window = await calculator(session)
        return window is not None and mode(window) == "paper"

    await wait_for(paper, "galculator in paper mode")


async def enter(session: cb.Session, entries: list[str]) -> None:
    """Each entry typed with Enter, once the tape shows the one before (and its result)."""
    for entry in entries:
        window = await calculator(session)
        length = len(tape(window) or []) if window is not None else 0
        await act(session, *keys(entry), key("enter"))

        async def grew(length: int = length) -> bool:
            window = await calculator(session)
            return window is not None and len(tape(window) or []) >= length + 2

        await wait_for(grew, f"the tape to show {entry}")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta: Meta = task.metadata
    await to_paper(session)
    await enter(session, [expression for expression, _ in meta["sums"]])


@cb.wrong_way
async def results_typed(task: cb.Task, session: cb.Session) -> None:
    """Each value worked out elsewhere and typed in: the tape shows values, not the expressions."""
    await to_paper(session)
    await enter(session, [str(result) for _, result in task.metadata["sums"]])


@cb.wrong_way
async def last_one_missing(task: cb.Task, session: cb.Session) -> None:
    await to_paper(session)
    await enter(session, [expression for expression, _ in task.metadata["sums"][:-1]])
