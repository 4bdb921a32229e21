"""galculator-trig-degrees: the sine, cosine or tangent of an angle in degrees, on galculator's display.

galculator starts in scientific mode with its angle unit at radians. The oracle chooses Calculator >
Angle units > Degrees, types the angle, and clicks the function's button (menus and buttons found in
the accessibility tree); galculator shows the value.

The evaluator reads galculator's live display from the accessibility tree at evaluation time: its
number must be the function of the angle in degrees to galculator's 12 significant digits (1e-9); a
value to that many digits is not worked out in one's head. galculator must be open, and no file under
home may have changed.
Wrong ways: ``in_radians`` (the angle unit left at radians) and ``other_function`` (the next of sin,
cos, tan instead).
"""

from __future__ import annotations

import math
import random

import cua_bench as cb
from cua_bench_tasks_desktop._calculator import calculator, choose, display, keys, open_galculator, press_button
from cua_bench_tasks_desktop._common import act, files_since_setup, key, loaders, nothing_else_changed, wait_for

NAME = "galculator-trig-degrees"
FUNCTIONS = {"sin": math.sin, "cos": math.cos, "tan": math.tan}
NAMES = {"sin": "sine", "cos": "cosine", "tan": "tangent"}
SPECIAL = {30, 45, 60}


def build(rng: random.Random) -> cb.Task:
    function = rng.choice(sorted(FUNCTIONS))
    angle = rng.choice([a for a in range(1, 90) if a not in SPECIAL])
    return cb.Task(
        description=f"galculator is open. Use it to compute the {NAMES[function]} of {angle} degrees and leave "
        "the result on its display.",
        metadata={"function": function, "angle": angle},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def value(function: str, angle: float, *, degrees: bool = True) -> float:
    return FUNCTIONS[function](math.radians(angle) if degrees else angle)


def close_to(number: str | None, want: float) -> bool:
    try:
        return number is not None and math.isclose(float(number.replace(" ", "")), want, rel_tol=1e-9, abs_tol=1e-9)
    except ValueError:
        return False


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_galculator(task, session, "scientific", angle="Radians")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    window = await calculator(session)
    shown = display(window) if window is not None else None
    want = value(meta["function"], meta["angle"])
    ok = close_to(shown, want)
    if not ok:
        task.explain(f"the display shows {shown!r}, not {want:.12g}")
    return [1.0 if ok and nothing_else_changed(task, before, after) else 0.0]


async def compute(session: cb.Session, function: str, angle: int, *, degrees: bool) -> None:
    if degrees:
        await choose(session, "Calculator", "Angle units", "Degrees")
    for _attempt in range(3):
        await act(session, key("escape"), *keys(str(angle)))

        async def shows_angle() -> bool:
            window = await calculator(session)
            return window is not None and display(window) == str(angle)

        try:
            await wait_for(shows_angle, "the angle on the display", timeout=5)
            break
        except cb.TaskError:
            continue
    await press_button(session, function)

    async def shows_value() -> bool:
        window = await calculator(session)
        return window is not None and close_to(display(window), value(function, angle, degrees=degrees))

    await wait_for(shows_value, f"the {function} on the display")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await compute(session, task.metadata["function"], task.metadata["angle"], degrees=True)


@cb.wrong_way
async def in_radians(task: cb.Task, session: cb.Session) -> None:
    """The angle unit left at radians: the function of the angle in radians."""
    await compute(session, task.metadata["function"], task.metadata["angle"], degrees=False)


@cb.wrong_way
async def other_function(task: cb.Task, session: cb.Session) -> None:
    """The next function of sin, cos, tan, in degrees."""
    names = sorted(FUNCTIONS)
    other = names[(names.index(task.metadata["function"]) + 1) % len(names)]
    await compute(session, other, task.metadata["angle"], degrees=True)
