"""gallery-restore: in Photos, restore a given photo from Recently deleted (Albums, then its toolbar).

Easy: twelve photos in the roll and four in Recently deleted, the photo named, the phone at home.
Medium: thirty in the roll and ten deleted, the photo named, Photos open on a photo of the roll. Hard:
forty in the roll and thirty deleted, the photo given only by the day it was taken and below the first
screen of Recently deleted (scroll), Notes open in front.

The evaluator checks the whole state of the phone's apps: the photos are setup's with only the target
no longer marked deleted (back in the roll with its album and favourite as they were), and nothing else
changed (no other photo restored or erased, no note); no dialog or overlay left open. Chance 0.005:
opening Photos, Albums, Recently deleted, the one row and Restore, by random taps.

Wrong ways: ``restores_the_neighbour`` (the photo next to it in Recently deleted instead),
``oracle_then_the_neighbour`` (both), ``erases_it`` (Delete permanently on it instead of Restore).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import gallery, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "gallery-restore"
SHAPE = {"easy": (12, 4), "medium": (30, 10), "hard": (40, 30)}  # photos in the roll, in Recently deleted
SCREEN = 23  # rows of Recently deleted on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    kept, gone = SHAPE[difficulty]
    data = gallery.sample(rng, kept + gone)
    for photo in data["photos"]:
        photo["deleted"] = False
    for photo in rng.sample(data["photos"], gone):
        photo["deleted"] = True
    deleted = gallery.newest_first([p for p in data["photos"] if p["deleted"]])
    roll = [p for p in data["photos"] if not p["deleted"]]
    apps, state = ["gallery"], {"gallery": data}
    opened: tuple[str, str | None] | None = None
    target = rng.choice(deleted[SCREEN:] if difficulty == "hard" else deleted)
    if difficulty == "medium":
        opened = ("gallery", rng.choice(roll)["name"])
    elif difficulty == "hard":
        apps, state = ["gallery", "notes"], {"gallery": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    which = f"the photo taken on {gallery.shown_date(target['date'])}" if difficulty == "hard" else target["name"]
    description = rng.choice([f"In Photos, restore {which} from Recently deleted. Change nothing else.",
                              f"{which[0].upper()}{which[1:]} was deleted by mistake: restore it in Photos. "
                              "Change nothing else."])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.005,
                      max_steps={"easy": 14, "medium": 16, "hard": 24}[difficulty], photo=target["name"])  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    index = gallery.photo_index(task, task.metadata["photo"])

    def change(state: dict[str, Any]) -> None:
        state["gallery"]["photos"][index]["deleted"] = False

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


def _neighbour(task: cb.Task) -> dict[str, Any]:
    """The photo after the target in Recently deleted (before it, for the last)."""
    deleted = gallery.newest_first([p for p in task.metadata["data"]["gallery"]["photos"] if p["deleted"]])
    index = [p["name"] for p in deleted].index(task.metadata["photo"])
    return dict(deleted[index + 1] if index + 1 < len(deleted) else deleted[index - 1])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await gallery.open_deleted(hand, gallery.setup_photo(task, task.metadata["photo"]))
    await hand.tap("button", "Restore")


@cb.wrong_way
async def restores_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await gallery.open_deleted(hand, _neighbour(task))
    await hand.tap("button", "Restore")


@cb.wrong_way
async def oracle_then_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await restores_the_neighbour(task, session)


@cb.wrong_way
async def erases_it(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await gallery.open_deleted(hand, gallery.setup_photo(task, task.metadata["photo"]))
    await hand.tap("button", "Delete permanently")
    await hand.tap("button", "Delete", within=("dialog", "Photos"))
