"""files-move: in Files, move a named file from its folder to another folder.

Easy: four files a folder, the phone at home. Medium: eight a folder, Files open in the destination
folder. Hard: thirty files in the file's folder and the file among the last (the list must be
scrolled), a fifth folder made earlier among the destinations, Files open on its Trash, Notes and
Browser on the launcher too.

The evaluator checks the whole state of the phone's apps: the file is gone from its folder and is the
last file of the destination, name and size as they were; every other file, folder and the Trash as
they were; no dialog or overlay left open. Chance 0.005 (easy 0.01): the folder, the file, Move and the
right destination, each one tap among several.

Wrong ways: ``moves_it_to_another_folder`` (the wrong destination), ``moves_the_next_file`` (its
neighbour), ``deletes_it_instead`` (to the Trash) and ``oracle_then_moves_another_file``.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import browser, files, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "files-move"
SHAPE = {"easy": 4, "medium": 8, "hard": 10}  # files a folder (hard: thirty in the file's folder)
MADE = ["Projects", "Taxes", "Archive", "School", "Travel", "Scans", "Backups", "Work"]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count = SHAPE[difficulty]
    source = rng.choice(files.FOLDERS)
    data = files.sample(rng, count, sizes={source: 30} if difficulty == "hard" else None, trash=rng.randint(1, 3))
    if difficulty == "hard":
        data["folders"].append({"name": rng.choice(MADE), "files": []})
    folders = [f["name"] for f in data["folders"]]
    target, wrong = rng.sample([f for f in folders if f != source], 2)
    items = data["folders"][folders.index(source)]["files"]
    at = rng.randrange(len(items) - 4, len(items)) if difficulty == "hard" else rng.randrange(len(items))
    name = items[at]["name"]
    neighbour = items[at - 1 if at + 1 == len(items) else at + 1]["name"]
    opened = {"easy": None, "medium": ("files", target), "hard": ("files", "Trash")}[difficulty]
    seeded: dict[str, Any] = {"files": data}
    apps = ["files"]
    if difficulty == "hard":
        apps += ["notes", "browser"]
        seeded |= {"notes": notes.sample(rng, 3), "browser": browser.sample(rng, 5)}
    description = f'In Files, move "{name}" from {source} to {target}.'
    chance = 0.01 if difficulty == "easy" else 0.005
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=16,
                      source=source, target=target, wrong=wrong, at=at, name=name, neighbour=neighbour)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


def folder(state: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return next(f for f in state["files"]["folders"] if f["name"] == name)["files"]  # type: ignore[no-any-return]


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        folder(state, meta["target"]).append(folder(state, meta["source"]).pop(meta["at"]))

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


async def move(hand: Hand, source: str, name: str, target: str) -> None:
    await open_file(hand, source, name)
    await hand.tap("button", "Move")
    await hand.tap("listitem", target, within=("list", "Move to"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await move(Hand(session), meta["source"], meta["name"], meta["target"])


@cb.wrong_way
async def moves_it_to_another_folder(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await move(Hand(session), meta["source"], meta["name"], meta["wrong"])


@cb.wrong_way
async def moves_the_next_file(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await move(Hand(session), meta["source"], meta["neighbour"], meta["target"])


@cb.wrong_way
async def deletes_it_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_file(hand, task.metadata["source"], task.metadata["name"])
    await hand.tap("button", "Delete")
    await hand.tap("button", "Delete", within=("dialog", "Files"))


@cb.wrong_way
async def oracle_then_moves_another_file(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    meta = task.metadata
    await move(Hand(session), meta["source"], meta["neighbour"], meta["target"])
