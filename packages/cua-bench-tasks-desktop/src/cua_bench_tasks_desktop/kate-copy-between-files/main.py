"""kate-copy-between-files: copy a block of lines from one file open in Kate to the end of another, and save it.

Both files are open in Kate (two tabs), the target shown. The instruction names the lines of the source
(by number), and asks for them at the end of the target, the source left as it is. The oracle opens
the source with Kate's Quick Open (ctrl+alt+o, its name typed, Enter) and waits for the title to show
it, selects the lines with the keyboard and copies them (ctrl+c), goes back to the target the same way,
pastes at its end (ctrl+end, ctrl+v) and saves with ctrl+s.

The evaluator reads the target's bytes (a plain file with one link): its seed text followed by exactly
those lines (Kate ends the file with a newline), and no other file under home changed (the source
among them) but Kate's own (``_kate.KATE_WRITES``).
Wrong ways: ``cuts_instead_of_copying`` (ctrl+x: the block moved, both files saved) and
``pastes_at_the_top`` (ctrl+home: the block before the target's first line). Waived: ``forged-write``
(the file is the output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    distinct,
    file_name,
    key,
    loaders,
    sentence,
    window,
)
from cua_bench_tasks_desktop._kate import open_in_kate, save, scored, select_lines, title
from cua_core import TypeText, Wait

NAME = "kate-copy-between-files"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    source, target = (f"{folder}/{name}" for name in distinct(rng, 2, lambda r: file_name(r, ".txt")))
    lines = [sentence(rng) for _ in range(rng.randint(5, 9))]
    first = rng.randint(0, len(lines) - 2)
    last = rng.randint(first + 1, min(first + 3, len(lines) - 1))
    kept = [sentence(rng) for _ in range(rng.randint(2, 5))]
    return cb.Task(
        description=f"The files ~/{source} and ~/{target} are open in Kate. Copy lines {first + 1} to {last + 1} of "
        f"{source.rsplit('/', 1)[-1]} to the end of {target.rsplit('/', 1)[-1]} (after its last line), leaving "
        f"{source.rsplit('/', 1)[-1]} as it is, then save {target.rsplit('/', 1)[-1]}.",
        metadata={
            "source": source,
            "target": target,
            "text": "\n".join(lines) + "\n",
            "kept": "\n".join(kept) + "\n",
            "first": first,
            "last": last,
        },
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def block(meta: Meta) -> str:
    return "\n".join(meta["text"].split("\n")[meta["first"] : meta["last"] + 1]) + "\n"


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    files: dict[str, str | bytes] = {meta["source"]: meta["text"], meta["target"]: meta["kept"]}
    await open_in_kate(task, session, files, meta["source"], meta["target"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await scored(task, session, meta["target"], [(meta["kept"] + block(meta)).encode()])


async def show(session: cb.Session, path: str) -> None:
    """Kate's Quick Open: the document's name typed, Enter, and the wait for the title to show it."""
    await act(session, key("ctrl+alt+o"), Wait(0.8), TypeText(path.rsplit("/", 1)[-1]), Wait(0.5), key("enter"))
    await window(session, title(path, clean=False))


async def _copy(session: cb.Session, meta: Meta, *, combo: str = "ctrl+c", end: str = "ctrl+end") -> None:
    await show(session, meta["source"])
    await act(session, *select_lines(meta["first"], meta["last"]), key(combo))
    await show(session, meta["target"])
    await act(session, key(end), key("ctrl+v"))
    await save(session, meta["target"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _copy(session, task.metadata)


@cb.wrong_way
async def cuts_instead_of_copying(task: cb.Task, session: cb.Session) -> None:
    """The block cut (ctrl+x) from the source and pasted at the target's end; both files saved."""
    meta = task.metadata
    await _copy(session, meta, combo="ctrl+x")
    await show(session, meta["source"])
    await save(session, meta["source"])


@cb.wrong_way
async def pastes_at_the_top(task: cb.Task, session: cb.Session) -> None:
    """The block copied, and pasted before the target's first line (ctrl+home)."""
    await _copy(session, task.metadata, end="ctrl+home")
