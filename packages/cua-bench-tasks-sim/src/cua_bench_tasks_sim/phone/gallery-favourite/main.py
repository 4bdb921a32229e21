"""gallery-favourite: in Photos, mark a given photo as a favourite (or, where it is one already, take it
out of the favourites).

Easy: twelve photos, the photo named, within the first screen of the camera roll, the phone at home.
Medium: forty, the photo named and maybe below the first screen (scroll), Photos already open on
another photo. Hard: eighty, the photo given only by the day it was taken and below the first screen,
Notes open in front.

The evaluator checks the whole state of the phone's apps: the photos are setup's with only the target's
``favourite`` set as asked, and nothing else changed (no other photo, album or note); no dialog or
overlay left open. Chance 0.01 easy, 0.005 otherwise: opening Photos, the one row among twenty-odd and
then the Favourite box among six controls, by random taps.

Wrong ways: ``favourites_the_neighbour`` (the photo next to it in the roll instead),
``oracle_then_the_neighbour`` (both photos), ``oracle_then_deletes_it`` (the right box, then the photo
deleted).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import gallery, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "gallery-favourite"
SHAPE = {"easy": 12, "medium": 40, "hard": 80}  # photos in the roll
SCREEN = 24  # rows of the roll on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = gallery.sample(rng, SHAPE[difficulty])
    roll = gallery.newest_first([p for p in data["photos"] if not p["deleted"]])
    if difficulty == "easy":
        target = rng.choice(roll[: SCREEN - 4])
    elif difficulty == "medium":
        target = rng.choice(roll)
    else:
        target = rng.choice(roll[SCREEN:])
    want = not target["favourite"]
    apps, state = ["gallery"], {"gallery": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("gallery", rng.choice([p for p in roll if p is not target])["name"])
    elif difficulty == "hard":
        apps, state = ["gallery", "notes"], {"gallery": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    which = f"the photo taken on {gallery.shown_date(target['date'])}" if difficulty == "hard" else target["name"]
    if want:
        description = f"In Photos, mark {which} as a favourite. Change nothing else."
    else:
        description = f"In Photos, {which} is a favourite: make it no longer a favourite. Change nothing else."
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.01 if difficulty == "easy" else 0.005,
                      max_steps={"easy": 12, "medium": 16, "hard": 24}[difficulty], photo=target["name"],
                      favourite=want)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    index = gallery.photo_index(task, meta["photo"])

    def change(state: dict[str, Any]) -> None:
        state["gallery"]["photos"][index]["favourite"] = meta["favourite"]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def set_favourite(hand: Hand, photo: dict[str, Any], want: bool) -> None:
    await gallery.open_photo(hand, photo)
    if await hand.value("checkbox", "Favourite") != want:
        await hand.tap("checkbox", "Favourite")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await set_favourite(Hand(session), gallery.setup_photo(task, task.metadata["photo"]), task.metadata["favourite"])


@cb.wrong_way
async def favourites_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await gallery.open_photo(hand, gallery.neighbour(task))
    await hand.tap("checkbox", "Favourite")


@cb.wrong_way
async def oracle_then_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await favourites_the_neighbour(task, session)


@cb.wrong_way
async def oracle_then_deletes_it(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.tap("button", "Delete")
    await hand.tap("button", "Delete", within=("dialog", "Photos"))
