"""fileroller-add-file: add one file to an archive open in File Roller (a .zip or a .tar.gz by variant).

The oracle presses Add, goes from Home to ~/Documents in the Add Files dialog, ticks the file's check
box and presses Add.
The evaluator reads the archive by content (``_archive.read_archive``): still its format, its old
members with their bytes, the file added at its top level with the file's bytes, nothing else; the
file itself and everything else under home unchanged.
Wrong ways: ``neighbour_added_instead`` (the file beside it added) and ``added_with_a_neighbour``
(both ticked: an extra member).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._archive import (
    add_files,
    archive_bytes,
    archive_score,
    archive_title,
)
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    distinct,
    file_name,
    loaders,
    remember_files,
    sentence,
    start,
    write_files,
)

NAME = "fileroller-add-file"
WAIVED = OUTPUT_IS_THE_WORK
FORMATS = ("zip", "tar.gz")


def build(rng: random.Random) -> cb.Task:
    names = distinct(rng, rng.randint(4, 7), lambda r: file_name(r, r.choice([".txt", ".md", ".csv"])))
    new, neighbour, *held = names
    fmt = rng.choice(FORMATS)
    path = f"{rng.choice(WORDS)}-{rng.choice(['pack', 'bundle', 'archive', 'batch'])}{rng.randint(1, 9)}.{fmt}"
    members = {name: sentence(rng) + "\n" for name in held}
    files = {f"Documents/{new}": sentence(rng) + "\n", f"Documents/{neighbour}": sentence(rng) + "\n"}
    return cb.Task(
        description=f"File Roller shows the archive ~/{path}. Add the file ~/Documents/{new} to it, at the top "
        "level of the archive.",
        metadata={
            "path": path,
            "format": fmt,
            "new": new,
            "neighbour": neighbour,
            "members": members,
            "files": files,
            "expected": {**members, new: files[f"Documents/{new}"]},
        },
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, meta["files"])
    await session.write_bytes(meta["path"], archive_bytes(meta["format"], meta["members"]))
    await start(session, "file-roller", meta["path"], title=archive_title(meta["path"]))
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await archive_score(task, session, meta["path"], meta["format"], meta["expected"])


async def _added(meta: Meta, session: cb.Session, names: list[str]) -> None:
    await add_files(session, meta["path"], "Documents", names)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _added(task.metadata, session, [task.metadata["new"]])


@cb.wrong_way
async def neighbour_added_instead(task: cb.Task, session: cb.Session) -> None:
    """The other file of ~/Documents added: the wrong member, the asked one missing."""
    await _added(task.metadata, session, [task.metadata["neighbour"]])


@cb.wrong_way
async def added_with_a_neighbour(task: cb.Task, session: cb.Session) -> None:
    """Both files of ~/Documents ticked: one member too many."""
    await _added(task.metadata, session, [task.metadata["new"], task.metadata["neighbour"]])
