"""files-new-folder: in Files, make a new folder with a given name (hard: and move a named file into it).

Easy: four files a folder, the phone at home. Medium: eight a folder, Files open in a folder. Hard:
eight a folder, Files open on a file, Notes and Browser on the launcher too, and a named file of a
folder to move into the new folder.

The evaluator checks the whole state of the phone's apps: the folders are setup's with one more after
them, named exactly so, empty (hard: holding only that file, gone from its folder); every other file,
folder and the Trash as they were, and no name being typed left (the New folder screen created or
closed); no dialog or overlay left open. Chance 0 (the name is typed).

Wrong ways: ``names_it_in_lower_case`` (the name's near miss), ``oracle_then_makes_another`` (a second
folder too), ``oracle_then_moves_another_file_in`` (hard: a second file; else: a file) and
``renames_a_file_instead`` (a file given the folder's name).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import browser, files, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "files-new-folder"
SHAPE = {"easy": 4, "medium": 8, "hard": 8}  # files a folder
NAMES = [
    "Receipts", "Taxes", "Projects", "Archive", "School", "Travel", "Scans", "Backups", "Contracts", "Invoices",
    "Wallpapers", "Podcasts", "Recipes", "Holiday 2024", "Old photos", "Work", "Family", "Ringtones", "Manuals",
    "Tickets", "Letters", "Screenshots", "Camera", "Books",
]  # fmt: skip


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = files.sample(rng, SHAPE[difficulty], trash=rng.randint(0, 3))
    name = rng.choice(NAMES)
    source, other = rng.sample(files.FOLDERS, 2)
    items = next(f for f in data["folders"] if f["name"] == source)["files"]
    at = rng.randrange(len(items))
    moved, extra = items[at]["name"], items[at - 1 if at + 1 == len(items) else at + 1]["name"]
    first_of_other = next(f for f in data["folders"] if f["name"] == other)["files"][0]["name"]
    opened = {"easy": None, "medium": ("files", other), "hard": ("files", first_of_other)}[difficulty]
    seeded: dict[str, Any] = {"files": data}
    apps = ["files"]
    description = f'In Files, create a new folder named "{name}".'
    if difficulty == "hard":
        apps += ["notes", "browser"]
        seeded |= {"notes": notes.sample(rng, 3), "browser": browser.sample(rng, 5)}
        description = f'In Files, create a new folder named "{name}" and move "{moved}" from {source} into it.'
    steps = 30 if difficulty == "hard" else 16
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=0.0, max_steps=steps, name=name,
                      source=source, at=at, moved=moved if difficulty == "hard" else None, extra=extra)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        folders = state["files"]["folders"]
        made: list[dict[str, Any]] = []
        if meta["moved"] is not None:
            made.append(next(f for f in folders if f["name"] == meta["source"])["files"].pop(meta["at"]))
        folders.append({"name": meta["name"], "files": made})

    return score(settled(session) and unchanged_but(task, session, change))


async def to_folders(hand: Hand) -> None:
    """Files in front, on its list of folders."""
    await hand.launch("Files")
    while not await hand.shows("list", "Folders"):
        await hand.button("back")


async def make_folder(hand: Hand, name: str) -> None:
    await to_folders(hand)
    await hand.tap("button", "New folder")
    await hand.fill("Folder name", name)
    await hand.tap("button", "Create")


async def move(hand: Hand, source: str, name: str, target: str) -> None:
    await to_folders(hand)
    await hand.tap("listitem", source, within=("list", "Folders"))
    await hand.tap("listitem", name, within=("list", source))
    await hand.tap("button", "Move")
    await hand.tap("listitem", target, within=("list", "Move to"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    hand = Hand(session)
    await make_folder(hand, meta["name"])
    if meta["moved"] is not None:
        await move(hand, meta["source"], meta["moved"], meta["name"])


@cb.wrong_way
async def names_it_in_lower_case(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    hand = Hand(session)
    await make_folder(hand, meta["name"].lower())
    if meta["moved"] is not None:
        await move(hand, meta["source"], meta["moved"], meta["name"].lower())


@cb.wrong_way
async def oracle_then_makes_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await make_folder(Hand(session), "New folder")


@cb.wrong_way
async def oracle_then_moves_another_file_in(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    meta = task.metadata
    await move(Hand(session), meta["source"], meta["extra"], meta["name"])


@cb.wrong_way
async def renames_a_file_instead(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    hand = Hand(session)
    await to_folders(hand)
    await hand.tap("listitem", meta["source"], within=("list", "Folders"))
    await hand.tap("listitem", meta["extra"], within=("list", meta["source"]))
    await hand.tap("button", "Rename")
    await hand.fill("Name", meta["name"])
    await hand.tap("button", "Save")
