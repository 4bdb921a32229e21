"""xterm-copy-file: in a real xterm, copy a file into another folder, keeping the original.

The evaluator checks the copy holds the original's content, and that nothing else under home
changed (a snapshot taken at setup: the original, its neighbour and the target folder's own file
are still there, unchanged). Wrong ways: ``moved_not_copied`` (``mv``), ``whole_folder_copied``
(``cp`` of every file in the source folder) and ``target_neighbour_deleted`` (the oracle's
command, then ``rm`` of the file already in the target folder).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.filestate import is_copy
from cua_bench_tasks_desktop._common import (
    digest,
    distinct,
    file_name,
    files_since_setup,
    in_terminal,
    loaders,
    nothing_else_changed,
    read_text,
    sentence,
    shell,
    terminal_over,
    typed_until,
)

NAME = "xterm-copy-file"
FOLDERS = ("documents", "projects", "inbox", "drafts", "reports", "notes")
TARGETS = ("backup", "archive", "shared", "outbox", "old", "review")


def build(rng: random.Random) -> cb.Task:
    source, target = rng.choice(FOLDERS), rng.choice(TARGETS)
    names = distinct(rng, 3, lambda r: file_name(r, r.choice([".txt", ".md", ".csv"])))
    name = names[0]
    text = "\n".join(sentence(rng) for _ in range(rng.randint(1, 4))) + "\n"
    files = {f"{source}/{name}": text, f"{source}/{names[1]}": sentence(rng) + "\n"}
    files[f"{target}/{names[2]}"] = sentence(rng) + "\n"
    return cb.Task(
        description=f"In the terminal, copy the file ~/{source}/{name} into the folder ~/{target} "
        "(keep the original where it is).",
        metadata={"source": f"{source}/{name}", "target": f"{target}/{name}", "text": text, "files": files},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def command(meta: dict[str, str]) -> str:
    return f"cp {shell(meta['source'])} {shell(meta['target'].rsplit('/', 1)[0])}/"


async def copied(session: cb.Session, meta: dict[str, str]) -> bool:
    return (
        await read_text(session, meta["target"]) == meta["text"]
        and await read_text(session, meta["source"]) == meta["text"]
    )


setup = terminal_over(lambda meta: meta["files"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    asked = is_copy(after, meta["target"], digest(meta["text"]))
    kept = nothing_else_changed(task, before, after, expect=[meta["target"]])
    return [1.0 if asked and kept else 0.0]


solve = typed_until(command, copied, "the copy")


@cb.wrong_way
async def moved_not_copied(task: cb.Task, session: cb.Session) -> None:
    await in_terminal(session, "mv" + command(task.metadata).removeprefix("cp"))


@cb.wrong_way
async def whole_folder_copied(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    source, target = (meta[key].rsplit("/", 1)[0] for key in ("source", "target"))
    await in_terminal(session, f"cp {shell(source)}/* {shell(target)}/")


@cb.wrong_way
async def target_neighbour_deleted(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    folder = meta["target"].rsplit("/", 1)[0] + "/"
    neighbour = next(path for path in meta["files"] if path.startswith(folder))
    await in_terminal(session, f"{command(meta)} && rm -- {shell(neighbour)}")


@cb.wrong_way
async def hard_link_not_copy(task: cb.Task, session: cb.Session) -> None:
    """``ln``: the same inode under a second name, not a copy (an edit of one changes the other)."""
    await in_terminal(session, "ln" + command(task.metadata).removeprefix("cp"))


def source_neighbour(meta: dict[str, str]) -> str:
    """The other file in the source folder: untouched by the copy, so it must stay as it was."""
    folder = meta["source"].split("/")[0]
    return next(path for path in meta["files"] if path != meta["source"] and path.split("/")[0] == folder)


@cb.wrong_way
async def neighbour_made_world_writable(task: cb.Task, session: cb.Session) -> None:
    """The copy, then the untouched neighbour chmod'ed to 777."""
    meta = task.metadata
    neighbour = source_neighbour(meta)
    await in_terminal(session, f"{command(meta)} && chmod 777 -- {shell(neighbour)}")


@cb.wrong_way
async def neighbour_touched(task: cb.Task, session: cb.Session) -> None:
    """The copy, then the untouched neighbour's modification time changed."""
    meta = task.metadata
    neighbour = source_neighbour(meta)
    await in_terminal(session, f"{command(meta)} && touch -d '2001-01-01' -- {shell(neighbour)}")
