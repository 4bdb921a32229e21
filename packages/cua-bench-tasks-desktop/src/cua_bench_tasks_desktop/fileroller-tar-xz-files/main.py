"""fileroller-tar-xz-files: in File Roller, make a new .tar.xz archive of some of the files of a folder.

The oracle presses ctrl+N, types the name, picks ``.tar.xz`` in the New Archive dialog's format list
and presses Create, then Add: in the Add Files dialog it goes from Home to the folder, ticks the
check box of each file asked for and presses Add.
The evaluator reads ``~/NAME.tar.xz`` by content (``_archive.read_archive``): an xz-compressed tar
whose members are exactly those files at its top level with their bytes; a file of its own, and no
other file under home changed.
Wrong ways: ``every_file`` (the whole folder's files: extra members), ``as_zip`` (the .zip format:
another file, no .tar.xz) and ``one_left_out`` (a member missing).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._archive import (
    add_files,
    archive_score,
    new_archive,
    start_empty,
)
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    distinct,
    file_name,
    loaders,
    sentence,
)

NAME = "fileroller-tar-xz-files"
WAIVED = OUTPUT_IS_THE_WORK
FOLDERS = ("Reports", "Documents", "Notes", "Exports")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    names = distinct(rng, rng.randint(4, 6), lambda r: file_name(r, r.choice([".txt", ".md", ".csv", ".log"])))
    chosen = sorted(rng.sample(names, rng.randint(2, 3)))
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in names}
    stem = f"{rng.choice(WORDS)}-{rng.choice(['selected', 'picked', 'send', 'share'])}-{rng.randint(1, 99)}"
    listed = ", ".join(chosen[:-1]) + f" and {chosen[-1]}"
    return cb.Task(
        description=f"Archive Manager (File Roller) is open. Make a new .tar.xz archive ~/{stem}.tar.xz holding "
        f"just the files {listed} from ~/{folder}, at the top level of the archive.",
        metadata={
            "folder": folder,
            "stem": stem,
            "chosen": chosen,
            "names": names,
            "files": files,
            "members": {name: files[f"{folder}/{name}"] for name in chosen},
        },
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await start_empty(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await archive_score(task, session, f"{meta['stem']}.tar.xz", "tar.xz", meta["members"])


async def _made(meta: Meta, session: cb.Session, ext: str, names: list[str]) -> None:
    await new_archive(session, meta["stem"], ext)
    await add_files(session, meta["stem"] + ext, meta["folder"], names)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _made(task.metadata, session, ".tar.xz", task.metadata["chosen"])


@cb.wrong_way
async def every_file(task: cb.Task, session: cb.Session) -> None:
    """Every file of the folder ticked: members that were not asked for."""
    await _made(task.metadata, session, ".tar.xz", task.metadata["names"])


@cb.wrong_way
async def as_zip(task: cb.Task, session: cb.Session) -> None:
    """The .zip format picked: ~/NAME.zip, and no .tar.xz."""
    await _made(task.metadata, session, ".zip", task.metadata["chosen"])


@cb.wrong_way
async def one_left_out(task: cb.Task, session: cb.Session) -> None:
    """The last file asked for not ticked: a member missing."""
    await _made(task.metadata, session, ".tar.xz", task.metadata["chosen"][:-1])
