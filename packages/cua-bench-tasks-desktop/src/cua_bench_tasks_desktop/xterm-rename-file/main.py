"""xterm-rename-file: in a real xterm, rename a file (its contents unchanged), leaving its neighbours alone.

The evaluator checks the new name holds the old file's content and the old name is gone, and that
nothing else under home changed (a snapshot taken at setup: the neighbours are there, unchanged,
and no copy was left anywhere). Wrong ways: ``neighbour_emptied`` (the oracle's command, then a
neighbour truncated) and ``backup_left_in_home`` (a copy kept in home, then the rename).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    WORDS,
    distinct,
    file_name,
    files_since_setup,
    in_terminal,
    listing,
    loaders,
    moved,
    nothing_else_changed,
    read_text,
    sentence,
    shell,
    terminal_over,
    typed_until,
)

NAME = "xterm-rename-file"


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    names = distinct(rng, 4, lambda r: file_name(r, r.choice([".txt", ".md", ".csv"])))
    old, new, others = names[0], names[1], names[2:]
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in [old, *others]}
    return cb.Task(
        description=f"In the terminal, rename the file ~/{folder}/{old} to {new} (in the same folder).",
        metadata={"folder": folder, "old": old, "new": new, "files": files},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def command(meta: dict[str, str]) -> str:
    return f"cd {shell(meta['folder'])} && mv {shell(meta['old'])} {shell(meta['new'])}"


async def renamed(session: cb.Session, meta: dict[str, object]) -> bool:
    folder, old, new, files = meta["folder"], meta["old"], meta["new"], meta["files"]
    assert isinstance(folder, str) and isinstance(files, dict)
    found = await listing(session, folder)
    expected = {path.split("/", 1)[1] for path in files if path != f"{folder}/{old}"} | {new}
    if found is None or set(found) != expected:
        return False
    return bool(await read_text(session, f"{folder}/{new}") == files[f"{folder}/{old}"])


setup = terminal_over(lambda meta: meta["files"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    old, new = f"{meta['folder']}/{meta['old']}", f"{meta['folder']}/{meta['new']}"
    before, after = await files_since_setup(task, session)
    asked = moved(before, after, old, new)
    kept = nothing_else_changed(task, before, after, expect=[old, new])
    return [1.0 if asked and kept else 0.0]


solve = typed_until(command, renamed, "the renamed file")


@cb.wrong_way
async def neighbour_emptied(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    neighbour = next(path for path in meta["files"] if path != f"{meta['folder']}/{meta['old']}")
    await in_terminal(session, f"{command(meta)} && truncate -s 0 ~/{shell(neighbour)}")


@cb.wrong_way
async def backup_left_in_home(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await in_terminal(
        session, f"cp {shell(meta['folder'] + '/' + meta['old'])} {shell(meta['old'] + '.bak')} && {command(meta)}"
    )


@cb.wrong_way
async def hidden_backup_left(task: cb.Task, session: cb.Session) -> None:
    """Renamed, with a hidden copy of the original left behind (``.old``)."""
    meta = task.metadata
    old, new = f"{meta['folder']}/{meta['old']}", f"{meta['folder']}/{meta['new']}"
    await in_terminal(
        session, f"cp -- {shell(old)} {shell(meta['folder'] + '/.' + meta['old'])} && mv -- {shell(old)} {shell(new)}"
    )
