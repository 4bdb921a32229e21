"""fileroller-extract-tar-gz: extract every file of a .tar.gz archive open in File Roller into a given folder.

The oracle presses the Extract button, types ``~/FOLDER`` into the Extract dialog (ctrl+L) and presses
Enter, then closes the note that the extraction completed.
The evaluator reads the end state from the file snapshot: the folder holds exactly the archive's
members (its subfolder too), each a regular file of its own with the member's bytes, and nothing else;
the archive and every other file under home are as setup left them.
Wrong ways: ``into_downloads`` (extracted beside the archive, not into the folder) and
``only_one_member`` (the first row selected and "Selected files" extracted: the rest is missing).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._archive import archive_bytes, archive_title, extract_all, extracted_exactly
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    distinct,
    file_name,
    files_since_setup,
    loaders,
    nothing_else_changed,
    remember_files,
    sentence,
    shell,
    start,
    write_files,
)

NAME = "fileroller-extract-tar-gz"
WAIVED = OUTPUT_IS_THE_WORK
TARGETS = ("Projects", "Work", "Restored", "Unpacked", "Backup", "Shared")
SUBFOLDERS = ("data", "images", "docs", "config", "notes", "old")


def build(rng: random.Random) -> cb.Task:
    names = distinct(rng, rng.randint(3, 6), lambda r: file_name(r, r.choice([".txt", ".md", ".csv", ".json"])))
    sub = rng.choice(SUBFOLDERS)
    nested = rng.randint(1, len(names) - 2)
    members = {name: sentence(rng) + "\n" for name in names[nested:]}
    members.update({f"{sub}/{name}": sentence(rng) + "\n" for name in names[:nested]})
    stem = f"{rng.choice(WORDS)}-{rng.choice(['backup', 'export', 'bundle', 'files'])}-{rng.randint(1, 99)}"
    target = rng.choice(TARGETS)
    return cb.Task(
        description=f"File Roller shows the archive ~/Downloads/{stem}.tar.gz. Extract all of its files into the "
        f"folder ~/{target} (keeping the archive's folders).",
        metadata={
            "stem": stem,
            "target": target,
            "members": members,
            "first": sorted(names[nested:])[0],
            "files": {f"Downloads/{file_name(rng, '.pdf')}": sentence(rng) + "\n"},
        },
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def archive_name(meta: Meta) -> str:
    return f"{meta['stem']}.tar.gz"


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, meta["files"])
    await session.write_bytes(f"Downloads/{archive_name(meta)}", archive_bytes("tar.gz", meta["members"]))
    await session.run_command(f"mkdir -p {shell(meta['target'])}", timeout=20, check=True)
    await start(session, "file-roller", f"Downloads/{archive_name(meta)}", title=archive_title(archive_name(meta)))
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    done = extracted_exactly(task, after, meta["target"], meta["members"])
    return [1.0 if done and nothing_else_changed(task, before, after, expect=[meta["target"]]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await extract_all(session, archive_name(task.metadata), task.metadata["target"])


@cb.wrong_way
async def into_downloads(task: cb.Task, session: cb.Session) -> None:
    """Extracted into ~/Downloads, beside the archive: the folder asked for stays empty."""
    await extract_all(session, archive_name(task.metadata), "Downloads")


@cb.wrong_way
async def only_one_member(task: cb.Task, session: cb.Session) -> None:
    """The first file's row selected before Extract, and "Selected files" extracted: the rest is missing."""
    meta = task.metadata
    await extract_all(session, archive_name(meta), meta["target"], selected=meta["first"])
