"""galculator-base-convert: show a decimal number in another number base on galculator's display.

galculator starts in scientific mode, in decimal. The oracle types the number, then chooses
Calculator > Number bases > the base asked (menus found in the accessibility tree): galculator converts
the number on its display.

The evaluator reads galculator's live state from the accessibility tree at evaluation time: the
display's number must be the number written in the base asked, and the digit buttons must show that
base (A-F sensitive only in hexadecimal, 8 and 9 not in octal, 2-9 not in binary); galculator must be
open and no file under home changed.
Wrong ways: ``wrong_base`` (converted to the next base of the menu instead) and ``typed_after_switching``
(the base switched first, then the decimal digits typed: another number).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._calculator import BASES, base, calculator, choose, display, keys, open_galculator
from cua_bench_tasks_desktop._common import act, files_since_setup, key, loaders, nothing_else_changed, wait_for

NAME = "galculator-base-convert"
TARGETS = ("Hexadecimal", "Octal", "Binary")
DIGITS = "0123456789ABCDEF"


def written(number: int, radix: int) -> str:
    """``number`` in base ``radix``, as galculator shows it (upper-case letters, no prefix)."""
    out = ""
    while True:
        number, digit = divmod(number, radix)
        out = DIGITS[digit] + out
        if not number:
            return out


def build(rng: random.Random) -> cb.Task:
    target = rng.choice(TARGETS)
    number = rng.randint(100, 999 if target == "Binary" else 60000)
    return cb.Task(
        description=f"galculator is open. Show the decimal number {number} in {target.lower()} on its display "
        "(galculator's own conversion: Calculator > Number bases).",
        metadata={"number": number, "base": target},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_galculator(task, session, "scientific")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    window = await calculator(session)
    want = written(meta["number"], BASES[meta["base"]])
    shown, in_base = (display(window), base(window)) if window is not None else (None, None)
    ok = shown is not None and shown.replace(" ", "") == want and in_base == meta["base"]
    if not ok:
        task.explain(f"the display shows {shown!r} in {in_base}, not {want!r} in {meta['base']}")
    return [1.0 if ok and nothing_else_changed(task, before, after) else 0.0]


async def shows(session: cb.Session, text: str) -> bool:
    window = await calculator(session)
    return window is not None and (display(window) or "").replace(" ", "") == text


async def type_number(session: cb.Session, digits: str) -> None:
    """``digits`` typed until the display shows them (Escape clears a start whose first key was lost)."""
    for _attempt in range(3):
        await act(session, key("escape"), *keys(digits))
        try:
            await wait_for(lambda: shows(session, digits), f"the display to show {digits}", timeout=5)
            return
        except cb.TaskError:
            continue
    raise cb.TaskError(f"galculator would not show {digits}")


async def switch(session: cb.Session, target: str) -> None:
    await choose(session, "Calculator", "Number bases", target)

    async def switched() -> bool:
        window = await calculator(session)
        return window is not None and base(window) == target

    await wait_for(switched, f"galculator in {target}")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await type_number(session, str(meta["number"]))
    await switch(session, meta["base"])
    await wait_for(lambda: shows(session, written(meta["number"], BASES[meta["base"]])), "the converted number")


@cb.wrong_way
async def wrong_base(task: cb.Task, session: cb.Session) -> None:
    """Converted, but to the next base of the menu instead of the one asked."""
    meta = task.metadata
    other = TARGETS[(TARGETS.index(meta["base"]) + 1) % len(TARGETS)]
    await type_number(session, str(meta["number"]))
    await switch(session, other)


@cb.wrong_way
async def typed_after_switching(task: cb.Task, session: cb.Session) -> None:
    """The base switched first, then the decimal digits typed (those the base takes): another number."""
    meta = task.metadata
    await switch(session, meta["base"])
    digits = "".join(d for d in str(meta["number"]) if int(d) < BASES[meta["base"]]) or "1"
    await act(session, key("escape"), *keys(digits))
    await wait_for(lambda: shows(session, digits), "the digits")
