"""files-rename: in Files, rename a named file of a folder to a given name.

Easy: four files a folder, the phone at home. Medium: eight a folder, Files open in another folder.
Hard: thirty files in the file's folder and the file among the last (the list must be scrolled), Files
open on a file of another folder, Notes and Browser on the launcher too.

The evaluator checks the whole state of the phone's apps: the file has the new name, in its place in
its folder, with its size; every other file, folder and the Trash as they were, and no name being
typed left (the Rename screen saved or closed); no dialog or overlay left open. Chance 0 (the name is
typed).

Wrong ways: ``renames_the_next_file`` (its neighbour given the name), ``drops_the_extension`` (the name
without ".pdf"), ``oracle_then_deletes_another_file`` and ``moves_then_renames`` (renamed right, but
moved to another folder first).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import browser, files, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "files-rename"
SHAPE = {"easy": 4, "medium": 8, "hard": 12}  # files a folder (hard: thirty in the file's folder)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count = SHAPE[difficulty]
    folder = rng.choice(files.FOLDERS)
    sizes = {folder: 30} if difficulty == "hard" else None
    data = files.sample(rng, count, sizes=sizes, trash=rng.randint(1, 3))
    items = next(f for f in data["folders"] if f["name"] == folder)["files"]
    at = rng.randrange(len(items) - 4, len(items)) if difficulty == "hard" else rng.randrange(len(items))
    old = items[at]["name"]
    taken = {f["name"] for d in data["folders"] for f in d["files"]} | {f["name"] for f in data["trash"]}
    new = old
    while new in taken:  # a new name of the same kind, with the file's extension
        new = f"{files.file_name(rng, folder, taken).rsplit('.', 1)[0]}.{old.rsplit('.', 1)[1]}"
    other = rng.choice([f for f in files.FOLDERS if f != folder])
    opened: tuple[str, str | None] | None = {
        "easy": None,
        "medium": ("files", other),
        "hard": ("files", next(f for f in data["folders"] if f["name"] == other)["files"][0]["name"]),
    }[difficulty]
    seeded: dict[str, Any] = {"files": data}
    apps = ["files"]
    if difficulty == "hard":
        apps += ["notes", "browser"]
        seeded |= {"notes": notes.sample(rng, 3), "browser": browser.sample(rng, 5)}
    description = f'In Files, rename "{old}" in {folder} to "{new}".'
    steps = 24 if difficulty == "hard" else 20
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=0.0, max_steps=steps, folder=folder,
                      at=at, old=old, new=new, other=other)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        folder = next(f for f in state["files"]["folders"] if f["name"] == meta["folder"])
        folder["files"][meta["at"]]["name"] = meta["new"]

    return score(settled(session) and unchanged_but(task, session, change))


async def to_folders(hand: Hand) -> None:
    """Files in front, on its list of folders."""
    await hand.launch("Files")
    while not await hand.shows("list", "Folders"):
        await hand.button("back")


async def open_file(hand: Hand, folder: str, name: str) -> None:
    await to_folders(hand)
    await hand.tap("listitem", folder, within=("list", "Folders"))
    await hand.scroll_to("listitem", name, within=("list", folder))
    await hand.tap("listitem", name, within=("list", folder))


async def rename(hand: Hand, folder: str, old: str, new: str) -> None:
    await open_file(hand, folder, old)
    await hand.tap("button", "Rename")
    await hand.fill("Name", new)
    await hand.tap("button", "Save")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await rename(Hand(session), meta["folder"], meta["old"], meta["new"])


def neighbour(task: cb.Task) -> str:
    meta = task.metadata
    items = next(f for f in meta["data"]["files"]["folders"] if f["name"] == meta["folder"])["files"]
    return str(items[meta["at"] - 1 if meta["at"] + 1 == len(items) else meta["at"] + 1]["name"])


@cb.wrong_way
async def renames_the_next_file(task: cb.Task, session: cb.Session) -> None:
    await rename(Hand(session), task.metadata["folder"], neighbour(task), task.metadata["new"])


@cb.wrong_way
async def drops_the_extension(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await rename(Hand(session), meta["folder"], meta["old"], meta["new"].rsplit(".", 1)[0])


@cb.wrong_way
async def oracle_then_deletes_another_file(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await open_file(hand, task.metadata["folder"], neighbour(task))
    await hand.tap("button", "Delete")
    await hand.tap("button", "Delete", within=("dialog", "Files"))


@cb.wrong_way
async def moves_then_renames(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    hand = Hand(session)
    await open_file(hand, meta["folder"], meta["old"])
    await hand.tap("button", "Move")
    await hand.tap("listitem", meta["other"], within=("list", "Move to"))
    await rename(hand, meta["other"], meta["old"], meta["new"])
