"""pcmanfm-new-folder: create a folder with a given name in the PCManFM file manager (File > Create New)."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    NOUNS,
    act,
    distinct,
    file_name,
    key,
    listing,
    loaders,
    sentence,
    start,
    submit_dialog,
    wait_for,
    write_files,
)

NAME = "pcmanfm-new-folder"
FOLDERS = ("Documents", "Projects", "Pictures", "Music", "Work")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    new = rng.choice([f"{rng.choice(NOUNS)} {rng.randint(2019, 2031)}", f"{rng.choice(NOUNS)}-{rng.choice(NOUNS)}",
                      rng.choice(NOUNS).capitalize() + " files"])  # fmt: skip
    names = distinct(rng, rng.randint(1, 4), file_name)
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in names}
    return cb.Task(
        description=f"The file manager shows ~/{folder}. Create a new folder named '{new}' in it.",
        metadata={"folder": folder, "new": new, "files": files},
        max_steps=10,
    )


load_train, load_test = loaders(NAME, build)


async def created(session: cb.Session, meta: dict[str, object]) -> bool:
    found = await listing(session, str(meta["folder"]))
    return found is not None and found.get(str(meta["new"])) == "d"


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["files"])
    await start(session, "pcmanfm", task.metadata["folder"], title=task.metadata["folder"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await created(session, task.metadata) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, key("ctrl+shift+n"))
    await submit_dialog(session, "Creating New Folder", meta["new"])

    async def done() -> bool:
        return await created(session, meta)

    await wait_for(done, "the new folder")
