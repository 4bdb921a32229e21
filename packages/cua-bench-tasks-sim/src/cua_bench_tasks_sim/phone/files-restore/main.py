"""files-restore: in Files, restore a named file from the Trash (back to the folder it was deleted from).

Easy: three files in the Trash, the phone at home. Medium: six, Files open in a folder. Hard: twenty-
eight and the file among the last (the Trash's list must be scrolled), Files open on a file, Notes and
Browser on the launcher too.

The evaluator checks the whole state of the phone's apps: the file is gone from the Trash and is the
last file of the folder it was deleted from, name and size as they were; every other file, folder and
the rest of the Trash as they were; no dialog or overlay left open. Chance 0.01 (easy 0.02): Trash, the
file and Restore, each one tap among several.

Wrong ways: ``restores_the_next_file`` (its neighbour), ``deletes_it_forever``,
``oracle_then_restores_another`` and ``oracle_then_moves_it`` (restored, then moved to another folder).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import browser, files, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "files-restore"
SHAPE = {"easy": (4, 3), "medium": (8, 6), "hard": (8, 28)}  # files a folder, files in the Trash


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, deleted = SHAPE[difficulty]
    data = files.sample(rng, count, trash=deleted)
    trash = data["trash"]
    at = rng.randrange(len(trash) - 4, len(trash)) if difficulty == "hard" else rng.randrange(len(trash))
    item = trash[at]
    neighbour = trash[at - 1 if at + 1 == len(trash) else at + 1]["name"]
    other = rng.choice([f for f in files.FOLDERS if f != item["folder"]])
    first_of_other = next(f for f in data["folders"] if f["name"] == other)["files"][0]["name"]
    opened = {"easy": None, "medium": ("files", other), "hard": ("files", first_of_other)}[difficulty]
    seeded: dict[str, Any] = {"files": data}
    apps = ["files"]
    if difficulty == "hard":
        apps += ["notes", "browser"]
        seeded |= {"notes": notes.sample(rng, 3), "browser": browser.sample(rng, 5)}
    description = f'In Files, restore "{item["name"]}" from the Trash.'
    chance = 0.02 if difficulty == "easy" else 0.01
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=16, at=at,
                      name=item["name"], folder=item["folder"], other=other, neighbour=neighbour)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        item = state["files"]["trash"].pop(meta["at"])
        folder = next(f for f in state["files"]["folders"] if f["name"] == item["folder"])
        folder["files"].append({"name": item["name"], "size": item["size"]})

    return score(settled(session) and unchanged_but(task, session, change))


async def to_trash(hand: Hand) -> None:
    """Files in front, on its Trash."""
    await hand.launch("Files")
    while not await hand.shows("list", "Folders"):
        await hand.button("back")
    await hand.tap("button", "Trash")


async def open_deleted(hand: Hand, name: str) -> None:
    await to_trash(hand)
    await hand.scroll_to("listitem", name, within=("list", "Trash"))
    await hand.tap("listitem", name, within=("list", "Trash"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_deleted(hand, task.metadata["name"])
    await hand.tap("button", "Restore")


@cb.wrong_way
async def restores_the_next_file(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_deleted(hand, task.metadata["neighbour"])
    await hand.tap("button", "Restore")


@cb.wrong_way
async def deletes_it_forever(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_deleted(hand, task.metadata["name"])
    await hand.tap("button", "Delete forever")
    await hand.tap("button", "Delete forever", within=("dialog", "Files"))


@cb.wrong_way
async def oracle_then_restores_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await open_deleted(hand, task.metadata["neighbour"])
    await hand.tap("button", "Restore")


@cb.wrong_way
async def oracle_then_moves_it(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    meta = task.metadata
    hand = Hand(session)
    await hand.button("back")  # the Trash, then the folders
    await hand.tap("listitem", meta["folder"], within=("list", "Folders"))
    await hand.scroll_to("listitem", meta["name"], within=("list", meta["folder"]))
    await hand.tap("listitem", meta["name"], within=("list", meta["folder"]))
    await hand.tap("button", "Move")
    await hand.tap("listitem", meta["other"], within=("list", "Move to"))
