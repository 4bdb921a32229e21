"""multi-galculator-to-gedit: add up a note's prices in galculator (paper mode) and write the total into the
note open in gedit (two apps: the note behind, the calculator in front), then save.

The oracle types the prices, joined by ``+`` in the note's order, into galculator's paper entry with
Enter, reads the result off the tape (as a person reads the screen), clicks into gedit's text where the
calculator does not cover it, goes to the end of the note, types the total after "total: " and saves.

The evaluator checks both ends: the note's whole text (the total after "total: ", nothing else changed;
the same plain file), and galculator's live tape, read from the accessibility tree at evaluation time,
holding the sum as entered (the prices joined by ``+``, spaces aside) followed by its value: the
calculator did the sum, not the agent's head. No other file under home may have changed. Nothing is
waived: a note written behind the apps' back (the adversary's forged write) has no sum on the tape.
Wrong ways: ``summed_in_the_head`` (the total typed into the note, the calculator never used),
``last_price_missing`` (the sum without the last line's price, its total written) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench.nodes import walk
from cua_bench_tasks_desktop._calculator import calculator, keys, open_galculator, tape
from cua_bench_tasks_desktop._common import (
    WORDS,
    act,
    click_at,
    key,
    loaders,
    saved_text_is,
    wait_for,
    window,
)
from cua_bench_tasks_desktop._gedit import open_in_gedit, save, title
from cua_bench_tasks_desktop._sheets import ITEMS
from cua_core import TypeText

NAME = "multi-galculator-to-gedit"


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{rng.choice(['receipt', 'invoice', 'order'])}_{rng.randint(1, 99)}.txt"
    lines = [[item, rng.randint(2, 999)] for item in rng.sample(ITEMS, rng.randint(2, 5))]
    return cb.Task(
        description=f"The note ~/{path} (open in gedit, behind) lists prices as 'item: price' lines and ends with "
        "'total: '. Add the prices up with galculator (open, in paper mode) as one sum of the prices in the note's "
        "order joined by '+', write the total after 'total: ' in the note, and save the note.",
        metadata={"path": path, "lines": lines},
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def note(meta: Meta, total: str = "") -> str:
    return "".join(f"{item}: {price}\n" for item, price in meta["lines"]) + f"total: {total}\n"


def the_sum(meta: Meta, lines: list[list[object]] | None = None) -> str:
    return "+".join(str(price) for _, price in (meta["lines"] if lines is None else lines))


def total(meta: Meta) -> int:
    return sum(int(price) for _, price in meta["lines"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_gedit(task, session, {meta["path"]: note(meta)}, meta["path"])
    await open_galculator(task, session, "paper")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    [saved] = await saved_text_is(task, session, note(meta, str(total(meta))))
    calc = await calculator(session)
    rows = [row.replace(" ", "") for row in (tape(calc) or [])] if calc is not None else []
    pairs = list(zip(rows[::2], rows[1::2], strict=False))
    done = (the_sum(meta), str(total(meta))) in pairs
    if not done:
        task.explain(f"galculator's tape {rows} holds no {the_sum(meta)} = {total(meta)}")
    return [saved if done else 0.0]


async def sum_in_calculator(session: cb.Session, expression: str) -> str:
    """The sum entered on galculator's paper; its result, read off the tape."""
    calc = await calculator(session)
    length = len(tape(calc) or []) if calc is not None else 0
    await act(session, *keys(expression), key("enter"))

    async def result() -> str | None:
        calc = await calculator(session)
        rows = tape(calc) or [] if calc is not None else []
        return rows[length + 1] if len(rows) >= length + 2 else None

    return await wait_for(result, "the sum on galculator's tape")


async def write_total(session: cb.Session, meta: Meta, value: str, *, saved: bool = True) -> None:
    """A click into gedit's text at its bottom-left corner (the calculator sits in the middle of the
    screen), then the total typed at the note's end."""
    tree = await session.accessibility_tree()
    text = next(
        n
        for n in walk(tree)
        if n.get("role") == "text"
        and "multi_line" in (n.get("states") or [])
        and n.get("bounds")
        and "editable" in n["states"]
    )
    await act(session, click_at(session, text["bounds"], 30, -30))
    await window(session, title(meta["path"]))
    # ctrl+end alone: gedit's End stops before trailing spaces first ("smart" End), short of "total: ".
    await act(session, key("ctrl+end"), TypeText(value))
    if saved:
        await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    value = await sum_in_calculator(session, the_sum(meta))
    await write_total(session, meta, value)


@cb.wrong_way
async def summed_in_the_head(task: cb.Task, session: cb.Session) -> None:
    """The right total typed into the note and saved; galculator never used."""
    await write_total(session, task.metadata, str(total(task.metadata)))


@cb.wrong_way
async def last_price_missing(task: cb.Task, session: cb.Session) -> None:
    """The sum without the last line's price, and its total written."""
    meta = task.metadata
    value = await sum_in_calculator(session, the_sum(meta, meta["lines"][:-1]))
    await write_total(session, meta, value)


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The sum done and the total typed, never saved."""
    meta = task.metadata
    value = await sum_in_calculator(session, the_sum(meta))
    await write_total(session, meta, value, saved=False)
