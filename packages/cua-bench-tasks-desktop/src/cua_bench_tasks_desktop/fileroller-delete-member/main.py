"""fileroller-delete-member: delete one member from an archive open in File Roller (.zip, .tar.gz or .tar.bz2).

The oracle clicks the member's row, presses Delete and confirms with the Delete button of the dialog
that asks (Selected files).
The evaluator reads the archive by content (``_archive.read_archive``): still its format, every other
member with its bytes, that member gone, nothing added; no other file under home changed (nothing
extracted on the way).
Wrong ways: ``neighbour_deleted`` (the member next to it deleted instead) and ``two_deleted`` (that
member and another).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._archive import (
    archive_bytes,
    archive_score,
    archive_title,
    delete_member,
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
)

NAME = "fileroller-delete-member"
WAIVED = OUTPUT_IS_THE_WORK
FORMATS = ("zip", "tar.gz", "tar.bz2")


def build(rng: random.Random) -> cb.Task:
    names = distinct(rng, rng.randint(3, 6), lambda r: file_name(r, r.choice([".txt", ".md", ".csv", ".log"])))
    fmt = rng.choice(FORMATS)
    path = f"Downloads/{rng.choice(WORDS)}-{rng.choice(['old', 'draft', 'shared', 'sent'])}{rng.randint(1, 9)}.{fmt}"
    members = {name: sentence(rng) + "\n" for name in names}
    member, other = rng.sample(names, 2)
    return cb.Task(
        description=f"File Roller shows the archive ~/{path}. Delete the file {member} from the archive (keep "
        "every other file in it).",
        metadata={
            "path": path,
            "format": fmt,
            "member": member,
            "other": other,
            "members": members,
            "expected": {name: text for name, text in members.items() if name != member},
        },
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await session.run_command("mkdir -p Downloads", timeout=20, check=True)
    await session.write_bytes(meta["path"], archive_bytes(meta["format"], meta["members"]))
    await start(session, "file-roller", meta["path"], title=archive_title(meta["path"].rsplit("/", 1)[1]))
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await archive_score(task, session, meta["path"], meta["format"], meta["expected"])


def _name(task: cb.Task) -> str:
    return str(task.metadata["path"]).rsplit("/", 1)[1]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await delete_member(session, _name(task), task.metadata["member"])


@cb.wrong_way
async def neighbour_deleted(task: cb.Task, session: cb.Session) -> None:
    """Another member deleted instead: the asked one is still there, one that should stay is gone."""
    await delete_member(session, _name(task), task.metadata["other"])


@cb.wrong_way
async def two_deleted(task: cb.Task, session: cb.Session) -> None:
    """The member deleted, and then another one too."""
    await delete_member(session, _name(task), task.metadata["member"])
    await delete_member(session, _name(task), task.metadata["other"])
