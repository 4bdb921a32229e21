"""pcmanfm-delete-file: delete one file (to the trash is fine) in the PCManFM file manager, keeping the others."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    act,
    distinct,
    file_name,
    key,
    listing,
    loaders,
    select_file,
    sentence,
    start,
    submit_dialog,
    wait_for,
    write_files,
)

NAME = "pcmanfm-delete-file"
FOLDERS = ("Documents", "Downloads", "Desktop", "Temp")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(FOLDERS)
    names = distinct(rng, rng.randint(3, 7), lambda r: file_name(r, r.choice([".txt", ".log", ".csv", ".tmp"])))
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in names}
    return cb.Task(
        description=f"The file manager shows ~/{folder}. Delete the file {names[0]} (moving it to the trash is "
        "fine); keep the other files.",
        metadata={"folder": folder, "name": names[0], "kept": sorted(names[1:]), "files": files},
        max_steps=10,
    )


load_train, load_test = loaders(NAME, build)


async def deleted(session: cb.Session, meta: dict[str, object]) -> bool:
    found = await listing(session, str(meta["folder"]))
    return found is not None and sorted(found) == meta["kept"]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await write_files(session, task.metadata["files"])
    await start(session, "pcmanfm", task.metadata["folder"], title=task.metadata["folder"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await deleted(session, task.metadata) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await select_file(session, meta["folder"], meta["name"])
    await act(session, key("delete"))
    await submit_dialog(session, "Confirm")  # "move to the trash?" Yes is the default button

    async def done() -> bool:
        return await deleted(session, meta)

    await wait_for(done, "the file to go")
