"""gallery-new-album: in Photos, make a new album with a given name and put given photos in it.

Easy: twelve photos, one photo to put in the album, named and within the first screen of the camera
roll, the phone at home. Medium: forty, one photo, named and maybe below the first screen, Photos open
on another photo. Hard: sixty, two photos, each given only by the day it was taken, at least one below
the first screen, Notes open in front.

The evaluator checks the whole state of the phone's apps: the albums are setup's with the new one after
them, its name exact (Photos trims spaces), the photos setup's with only the asked ones' ``album`` set to
it, and nothing else changed (no draft name left on an open New album screen, no note); no dialog or
overlay left open. Chance 0 (the name is typed).

Wrong ways: ``misspells_the_name`` (the album named with an extra "s"), ``the_neighbour`` (the right
album, the photo next to the asked one put in it instead), ``oracle_then_a_second_album`` (another new
album as well).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import gallery, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "gallery-new-album"
SHAPE = {"easy": 12, "medium": 40, "hard": 60}  # photos in the roll
SCREEN = 24  # rows of the roll on its first screen
PLACES = ["Lisbon", "Kyoto", "Oslo", "Lima", "Nairobi", "Quebec", "Seville", "Hanoi", "Bergen", "Cusco"]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = gallery.sample(rng, SHAPE[difficulty])
    roll = gallery.newest_first([p for p in data["photos"] if not p["deleted"]])
    apps, state = ["gallery"], {"gallery": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "easy":
        targets = [rng.choice(roll[: SCREEN - 4])]
    elif difficulty == "medium":
        targets = [rng.choice(roll)]
        opened = ("gallery", rng.choice([p for p in roll if p is not targets[0]])["name"])
    else:
        targets = sorted([rng.choice(roll[:SCREEN]), rng.choice(roll[SCREEN:])], key=lambda _: rng.random())
        apps, state = ["gallery", "notes"], {"gallery": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    free = [name for name in gallery.ALBUMS if name not in data["albums"]]
    album = rng.choice(free + [f"{place} {rng.randrange(2019, 2025)}" for place in PLACES])
    if difficulty == "hard":
        which = " and ".join(f"the photo taken on {gallery.shown_date(p['date'])}" for p in targets)
        put = f"put {which} in it"
    else:
        put = f"put {targets[0]['name']} in it"
    description = rng.choice([f'In Photos, create a new album named "{album}" and {put}. Change nothing else.',
                              f'Make a Photos album called "{album}", then {put}. Change nothing else.'])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 26, "medium": 32, "hard": 44}[difficulty],
                      photos=[p["name"] for p in targets], album=album)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    indices = [gallery.photo_index(task, name) for name in meta["photos"]]

    def change(state: dict[str, Any]) -> None:
        state["gallery"]["albums"].append(meta["album"])
        for index in indices:
            state["gallery"]["photos"][index]["album"] = meta["album"]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


def _neighbour(task: cb.Task) -> dict[str, Any]:
    """The photo after the first asked one in the roll (before it, for the last), not one asked for."""
    roll = gallery.newest_first([p for p in task.metadata["data"]["gallery"]["photos"] if not p["deleted"]])
    index = [p["name"] for p in roll].index(task.metadata["photos"][0])
    near = sorted(range(len(roll)), key=lambda i: (abs(i - index), -i))
    return dict(next(roll[i] for i in near if roll[i]["name"] not in task.metadata["photos"]))


async def new_album(hand: Hand, album: str) -> None:
    await gallery.to_roll(hand)
    await hand.tap("button", "Albums")
    await hand.tap("button", "New album")
    await hand.fill("Album name", album)
    await hand.tap("button", "Create")


async def make_album(hand: Hand, task: cb.Task, album: str, photos: list[dict[str, Any]]) -> None:
    await new_album(hand, album)
    for photo in photos:
        await gallery.add_to_album(hand, photo, album)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    photos = [gallery.setup_photo(task, name) for name in task.metadata["photos"]]
    await make_album(Hand(session), task, task.metadata["album"], photos)


@cb.wrong_way
async def misspells_the_name(task: cb.Task, session: cb.Session) -> None:
    photos = [gallery.setup_photo(task, name) for name in task.metadata["photos"]]
    await make_album(Hand(session), task, task.metadata["album"] + "s", photos)


@cb.wrong_way
async def the_neighbour(task: cb.Task, session: cb.Session) -> None:
    photos = [_neighbour(task)] + [gallery.setup_photo(task, name) for name in task.metadata["photos"][1:]]
    await make_album(Hand(session), task, task.metadata["album"], photos)


@cb.wrong_way
async def oracle_then_a_second_album(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await new_album(Hand(session), task.metadata["album"] + " 2")
