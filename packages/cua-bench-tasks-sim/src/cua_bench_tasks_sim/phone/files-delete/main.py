"""files-delete: in Files, delete a named file of a folder (it goes to the Trash).

Easy: four files a folder, the phone at home. Medium: eight a folder, Files open on a file of another
folder. Hard: thirty files in the file's folder and the file among the last (the list must be
scrolled), Files open on its Trash, Notes and Browser on the launcher too.

The evaluator checks the whole state of the phone's apps: the file is gone from its folder and is the
last entry of the Trash, with its size and that folder; every other file, folder and the rest of the
Trash as they were; no dialog or overlay left open. Chance 0.01 (easy 0.02): the folder, the file,
Delete and the confirmation, each one tap among several.

Wrong ways: ``deletes_the_next_file`` (its neighbour), ``oracle_then_deletes_it_forever`` (emptied from
the Trash too), ``moves_it_instead`` (to another folder) and ``oracle_then_deletes_another_file``.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import browser, files, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "files-delete"
SHAPE = {"easy": 4, "medium": 8, "hard": 10}  # files a folder (hard: thirty in the file's folder)


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count = SHAPE[difficulty]
    source = rng.choice(files.FOLDERS)
    data = files.sample(rng, count, sizes={source: 30} if difficulty == "hard" else None, trash=rng.randint(0, 3))
    items = next(f for f in data["folders"] if f["name"] == source)["files"]
    at = rng.randrange(len(items) - 4, len(items)) if difficulty == "hard" else rng.randrange(len(items))
    name = items[at]["name"]
    neighbour = items[at - 1 if at + 1 == len(items) else at + 1]["name"]
    other = rng.choice([f for f in files.FOLDERS if f != source])
    first_of_other = next(f for f in data["folders"] if f["name"] == other)["files"][0]["name"]
    opened = {"easy": None, "medium": ("files", first_of_other), "hard": ("files", "Trash")}[difficulty]
    seeded: dict[str, Any] = {"files": data}
    apps = ["files"]
    if difficulty == "hard":
        apps += ["notes", "browser"]
        seeded |= {"notes": notes.sample(rng, 3), "browser": browser.sample(rng, 5)}
    description = f'In Files, delete "{name}" from {source} (it goes to the Trash; leave it there).'
    chance = 0.02 if difficulty == "easy" else 0.01
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=16,
                      source=source, other=other, at=at, name=name, neighbour=neighbour)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        items = next(f for f in state["files"]["folders"] if f["name"] == meta["source"])["files"]
        state["files"]["trash"].append({**items.pop(meta["at"]), "folder": meta["source"]})

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


async def delete(hand: Hand, folder: str, name: str) -> None:
    await open_file(hand, folder, name)
    await hand.tap("button", "Delete")
    await hand.tap("button", "Delete", within=("dialog", "Files"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), task.metadata["source"], task.metadata["name"])


@cb.wrong_way
async def deletes_the_next_file(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), task.metadata["source"], task.metadata["neighbour"])


@cb.wrong_way
async def oracle_then_deletes_it_forever(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await to_folders(hand)
    await hand.tap("button", "Trash")
    await hand.tap("listitem", task.metadata["name"], within=("list", "Trash"))
    await hand.tap("button", "Delete forever")
    await hand.tap("button", "Delete forever", within=("dialog", "Files"))


@cb.wrong_way
async def moves_it_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_file(hand, task.metadata["source"], task.metadata["name"])
    await hand.tap("button", "Move")
    await hand.tap("listitem", task.metadata["other"], within=("list", "Move to"))


@cb.wrong_way
async def oracle_then_deletes_another_file(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await delete(Hand(session), task.metadata["source"], task.metadata["neighbour"])
