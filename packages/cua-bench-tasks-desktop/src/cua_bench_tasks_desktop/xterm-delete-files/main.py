"""xterm-delete-files: in a real xterm, delete every file of one extension in a folder, keeping the rest.

The evaluator checks every file of that extension in the folder is gone, and that nothing else
under home changed (a snapshot taken at setup: the kept files, unchanged, and a file of the same
extension in another folder). Wrong ways: ``kept_files_emptied`` (the oracle's command, then the
kept files truncated) and ``deleted_everywhere`` (``find`` over all of home).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    distinct,
    file_name,
    files_since_setup,
    gone,
    in_terminal,
    listing,
    loaders,
    nothing_else_changed,
    sentence,
    shell,
    terminal_over,
    typed_until,
)

NAME = "xterm-delete-files"
EXTENSIONS = (".log", ".tmp", ".bak", ".old")
KEEP = (".txt", ".md", ".csv", ".json")
FOLDERS = ("logs", "build", "cache", "output", "scratch")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    ext = rng.choice(EXTENSIONS)
    doomed = distinct(rng, rng.randint(2, 5), lambda r: file_name(r, ext))
    kept = distinct(rng, rng.randint(2, 4), lambda r: file_name(r, r.choice(KEEP)))
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in doomed + kept}
    # Another folder holds a file of the same extension: it is not inside the folder named, so it stays.
    elsewhere = rng.choice([name for name in FOLDERS if name != folder])
    files[f"{elsewhere}/{file_name(rng, ext)}"] = sentence(rng) + "\n"
    return cb.Task(
        description=f"In the terminal, delete every file ending in {ext} inside ~/{folder}; "
        "leave the other files there untouched.",
        metadata={
            "folder": folder,
            "ext": ext,
            "kept": sorted(kept),
            "doomed": sorted(f"{folder}/{name}" for name in doomed),
            "files": files,
        },
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def command(meta: dict[str, str]) -> str:
    return f"rm -- {shell(meta['folder'])}/*{meta['ext']}"


async def cleaned(session: cb.Session, meta: dict[str, object]) -> bool:
    folder, kept = meta["folder"], meta["kept"]
    assert isinstance(folder, str) and isinstance(kept, list)
    found = await listing(session, folder)
    return found is not None and sorted(found) == kept


setup = terminal_over(lambda meta: meta["files"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    asked = all(gone(before, after, path) for path in meta["doomed"])
    kept = nothing_else_changed(task, before, after, expect=meta["doomed"])
    return [1.0 if asked and kept else 0.0]


solve = typed_until(command, cleaned, "the files to go")


@cb.wrong_way
async def kept_files_emptied(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await in_terminal(session, f"{command(meta)} && truncate -s 0 {shell(meta['folder'])}/*")


@cb.wrong_way
async def deleted_everywhere(task: cb.Task, session: cb.Session) -> None:
    await in_terminal(session, f"find . -name '*{task.metadata['ext']}' -delete")


@cb.wrong_way
async def hidden_not_deleted(task: cb.Task, session: cb.Session) -> None:
    """The red team's way: each file renamed to a hidden ``.name`` beside where it was, not deleted."""
    moves = (
        f"mv -- {shell(path)} {shell(path.rsplit('/', 1)[0] + '/.' + path.rsplit('/', 1)[1])}"
        for path in task.metadata["doomed"]
    )
    await in_terminal(session, " && ".join(moves))
