"""galculator-compute: work out an expression with parentheses in galculator and leave the result on its display.

galculator starts in basic mode. The oracle types the expression's keys and ``=`` into the calculator
and waits until the display shows a new number; a key typed while the window was still taking the
focus can go nowhere, so when the display shows something else it clears it (Escape) and types again.

The evaluator reads galculator's live display from the accessibility tree at evaluation time (no file
the agent writes reaches it): its number must be the expression's value; galculator must still be open,
and no file under home may have changed. What it cannot tell is whether the agent worked the value out
itself and typed just the answer: a plain-display task's stated limit (galculator-paper-mode and
multi-galculator-to-gedit read the tape, which records the expression).
Wrong ways: ``parentheses_dropped`` (the same numbers and operators without the parentheses: another
value by precedence) and ``never_evaluated`` (the expression typed, ``=`` never pressed: the display
shows its last number, or its last group's value).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._calculator import calculator, display, keys, open_galculator, worked_out
from cua_bench_tasks_desktop._common import act, files_since_setup, key, loaders, nothing_else_changed, wait_for

NAME = "galculator-compute"
TEMPLATES = (
    "({a} + {b}) * {c} - {d}",
    "{a} * ({b} - {c}) + {d}",
    "({a} - {b}) * ({c} + {d})",
    "{d} + {c} * ({a} + {b})",
)


def build(rng: random.Random) -> cb.Task:
    while True:
        numbers = {name: rng.randint(2, 99) for name in "abcd"}
        expression = rng.choice(TEMPLATES).format(**numbers)
        value = worked_out(expression)
        flat = worked_out(expression.replace("(", "").replace(")", ""))
        if value not in (flat, unfinished(expression)):
            break
    return cb.Task(
        description=f"Use the calculator (galculator, open) to work out {expression} and leave the result on "
        "its display.",
        metadata={"expression": expression, "value": value},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def unfinished(expression: str) -> int:
    """What the display shows once the expression is typed without ``=``: its last number, or the
    value of its last parenthesised group when it ends with one (galculator works a group out on ``)``)."""
    if expression.endswith(")"):
        return worked_out(expression[expression.rindex("(") :])
    return int(expression.rsplit(maxsplit=1)[-1])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_galculator(task, session, "basic")


def shows(number: str | None, value: float) -> bool:
    """The display's text is ``value`` (galculator may group digits with spaces)."""
    try:
        return number is not None and float(number.replace(" ", "")) == value
    except ValueError:
        return False


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    window = await calculator(session)
    number = display(window) if window is not None else None
    ok = shows(number, task.metadata["value"])
    if not ok:
        task.explain(f"the display shows {number!r}, not {task.metadata['value']}")
    return [1.0 if ok and nothing_else_changed(task, before, after) else 0.0]


async def typed(session: cb.Session, text: str, shown: float) -> None:
    """``text`` typed into galculator until its display shows ``shown`` (Escape clears a bad start)."""
    for _attempt in range(3):
        await act(session, key("escape"), *keys(text))

        async def done() -> bool:
            window = await calculator(session)
            return window is not None and shows(display(window), shown)

        try:
            await wait_for(done, f"the display to show {shown}", timeout=5)
            return
        except cb.TaskError:
            continue
    raise cb.TaskError(f"galculator would not show {shown}")


def keys_of(expression: str) -> str:
    return expression.replace(" ", "")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta: Meta = task.metadata
    await typed(session, keys_of(meta["expression"]) + "=", meta["value"])


@cb.wrong_way
async def parentheses_dropped(task: cb.Task, session: cb.Session) -> None:
    """The expression without its parentheses: precedence gives another value."""
    flat = keys_of(task.metadata["expression"]).replace("(", "").replace(")", "")
    await typed(session, flat + "=", worked_out(flat))


@cb.wrong_way
async def never_evaluated(task: cb.Task, session: cb.Session) -> None:
    """The expression typed, ``=`` never pressed: the display shows its last number or group."""
    expression = task.metadata["expression"]
    await typed(session, keys_of(expression), unfinished(expression))
