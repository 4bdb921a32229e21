"""xterm-make-dirs: in a real xterm, create a nested folder path, or several sibling folders.

The evaluator expects the exact end state: every file and folder under home as at setup (a
snapshot), plus the asked-for folders and nothing more. Wrong ways: ``readme_deleted`` (the
oracle's command, then ``rm`` of the folder's README) and ``extra_folder`` (the oracle's command
and one more folder).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    NOUNS,
    WORDS,
    files_since_setup,
    in_terminal,
    listing,
    loaders,
    nothing_else_changed,
    shell,
    terminal_over,
    type_text,
    wait_for,
)

NAME = "xterm-make-dirs"


def build(rng: random.Random) -> cb.Task:
    root = rng.choice(["projects", "archive", "work", "clients", "shared"])
    if rng.random() < 0.5:
        parts = [str(rng.randint(2019, 2031)), rng.choice(WORDS), rng.choice(NOUNS)]
        wanted = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        what = f"the nested folder ~/{root}/{'/'.join(parts)} (every level of it)"
    else:
        wanted = sorted(rng.sample(NOUNS, rng.randint(2, 4)))
        what = f"the folders {', '.join(wanted[:-1])} and {wanted[-1]} directly inside ~/{root}"
    return cb.Task(
        description=f"In the terminal, create {what}.",
        metadata={"root": root, "wanted": wanted, "command": [f"{root}/{path}" for path in wanted]},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def command(meta: dict[str, list[str]]) -> str:
    return "mkdir -p " + " ".join(shell(path) for path in meta["command"])


async def made(session: cb.Session, meta: dict[str, object]) -> bool:
    found = await listing(session, str(meta["root"]))
    wanted = meta["wanted"]
    assert isinstance(wanted, list)
    return found is not None and all(found.get(path) == "d" for path in wanted)


setup = terminal_over(lambda meta: {f"{meta['root']}/README.txt": "Folders for the team.\n"})


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    folders = task.metadata["command"]
    asked = all(path in after and after[path].kind == "dir" for path in folders)
    # Only the folders themselves are expected: anything inside them is a change too.
    kept = nothing_else_changed(task, before, {path: state for path, state in after.items() if path not in folders})
    return [1.0 if asked and kept else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await type_text(session, command(task.metadata), enter=True)

    async def done() -> bool:
        return await made(session, task.metadata)

    await wait_for(done, "the folders")


@cb.wrong_way
async def readme_deleted(task: cb.Task, session: cb.Session) -> None:
    await in_terminal(session, f"{command(task.metadata)} && rm -- {shell(task.metadata['root'])}/README.txt")


@cb.wrong_way
async def extra_folder(task: cb.Task, session: cb.Session) -> None:
    last = task.metadata["command"][-1]
    await in_terminal(session, f"{command(task.metadata)} {shell(last + 's')}")


@cb.wrong_way
async def hidden_extra_folder(task: cb.Task, session: cb.Session) -> None:
    """The folders asked for, and a hidden one nobody asked for."""
    meta = task.metadata
    await in_terminal(
        session, f"mkdir -p -- {' '.join(shell(path) for path in meta['command'])} {shell(meta['root'] + '/.extra')}"
    )
