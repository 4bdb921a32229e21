"""kate-regex-replace: rewrite every date of a log open in Kate with a regular expression and capture groups.

The file's lines start with ISO dates (``2027-03-15 ...``); the instruction asks for each one as
``DD.MM.YYYY`` (``15.03.2027``), with Kate's Search and Replace in its Regular expression mode. The oracle
opens the replace bar (ctrl+r), picks "Regular expression" in its mode list (found in the accessibility
tree), types ``(\\d{4})-(\\d{2})-(\\d{2})`` into Find and ``\\3.\\2.\\1`` into Replace, clicks Replace All
and saves with ctrl+s.

The evaluator reads the file's bytes (a plain file with one link): every date rewritten, every other
character as it was, and no other file under home changed but Kate's own (``_kate.KATE_WRITES``).
Each line also holds a number that is no date, which a pattern too loose would change.
Wrong ways: ``month_first`` (``\\2.\\3.\\1``: MM.DD.YYYY) and ``keeps_the_year_first`` (``\\1.\\2.\\3``:
YYYY.MM.DD). Waived: ``forged-write`` (the file is the output).
"""

from __future__ import annotations

import random
import re

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, act, file_name, key, loaders, sentence
from cua_bench_tasks_desktop._kate import click_item, open_in_kate, save, scored
from cua_core import TypeText, Wait

NAME = "kate-regex-replace"
WAIVED = OUTPUT_IS_THE_WORK
DATE = r"(\d{4})-(\d{2})-(\d{2})"


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.log', '.txt']))}"
    lines = []
    for _ in range(rng.randint(4, 8)):
        year, month, day = rng.randint(2019, 2031), rng.randint(1, 12), rng.randint(13, 28)
        lines.append(f"{year}-{month:02d}-{day:02d} {sentence(rng)} #{rng.randint(100, 9999)}")
    return cb.Task(
        description=f"The file ~/{path} is open in Kate. Each line starts with a date written YYYY-MM-DD. Rewrite "
        "every one of them as DD.MM.YYYY (2027-03-15 becomes 15.03.2027), changing nothing else, with Kate's "
        "Search and Replace (Edit > Replace) in Regular expression mode using capture groups, then save the file.",
        metadata={"path": path, "text": "\n".join(lines) + "\n"},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: Meta) -> bytes:
    return re.sub(DATE, r"\3.\2.\1", meta["text"]).encode()


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_kate(task, session, {meta["path"]: meta["text"]}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, task.metadata["path"], [expected(task.metadata)])


async def _replace(session: cb.Session, meta: Meta, replacement: str) -> None:
    await act(session, key("ctrl+r"), Wait(0.5))
    await click_item(session, "Plain text", "combo box")
    await click_item(session, "Regular expression", "list item")
    await click_item(session, "Find:", "combo box")
    await act(session, key("ctrl+a"), TypeText(DATE))
    await click_item(session, "Replace:", "combo box")
    await act(session, key("ctrl+a"), TypeText(replacement), Wait(0.3))
    await click_item(session, "Replace All", "push button")
    await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _replace(session, task.metadata, r"\3.\2.\1")


@cb.wrong_way
async def month_first(task: cb.Task, session: cb.Session) -> None:
    """The groups in the wrong order: MM.DD.YYYY."""
    await _replace(session, task.metadata, r"\2.\3.\1")


@cb.wrong_way
async def keeps_the_year_first(task: cb.Task, session: cb.Session) -> None:
    """Only the separators changed: YYYY.MM.DD (``\\1.\\2.\\3``)."""
    await _replace(session, task.metadata, r"\1.\2.\3")
