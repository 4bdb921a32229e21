"""gallery-add-to-album: in Photos, put a given photo in a given album.

Easy: twelve photos and three or four albums, the photo named, in no album and within the first screen of
the camera roll, the phone at home. Medium: forty photos, the photo named and maybe below the first
screen, perhaps in another album already (it moves), Photos open on another photo. Hard: sixty photos
and seven to nine albums, the photo given only by the day it was taken and below the first screen,
Notes open in front.

The evaluator checks the whole state of the phone's apps: the photos are setup's with only the target's
``album`` set to the asked album, and nothing else changed (no other photo, no album made, no note);
no dialog or overlay left open. Chance 0.005: opening Photos, the one row among twenty-odd, "Add to
album" and the one album, by random taps.

Wrong ways: ``the_album_next_to_it`` (the album after the asked one in the list), ``the_neighbour``
(the photo next to it in the roll put in the album instead), ``oracle_then_the_neighbour`` (both).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import gallery, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "gallery-add-to-album"
SHAPE = {"easy": 12, "medium": 40, "hard": 60}  # photos in the roll
SCREEN = 24  # rows of the roll on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = gallery.sample(rng, SHAPE[difficulty])
    more = [name for name in gallery.ALBUMS if name not in data["albums"]]
    data["albums"] += rng.sample(more, max(0, 3 - len(data["albums"])))  # a wrong album to choose, always
    roll = gallery.newest_first([p for p in data["photos"] if not p["deleted"]])
    apps, state = ["gallery"], {"gallery": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "easy":
        target = rng.choice([p for p in roll[: SCREEN - 4] if not p["album"]] or roll[: SCREEN - 4])
        target["album"] = ""
    elif difficulty == "medium":
        target = rng.choice(roll)
        opened = ("gallery", rng.choice([p for p in roll if p is not target])["name"])
    else:
        target = rng.choice(roll[SCREEN:])
        more = [name for name in gallery.ALBUMS if name not in data["albums"]]
        data["albums"] += rng.sample(more, rng.randint(7, 9) - len(data["albums"]))
        apps, state = ["gallery", "notes"], {"gallery": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    album = rng.choice([name for name in data["albums"] if name != target["album"]])
    which = f"the photo taken on {gallery.shown_date(target['date'])}" if difficulty == "hard" else target["name"]
    description = rng.choice([f'In Photos, add {which} to the album "{album}". Change nothing else.',
                              f'Put {which} in the Photos album "{album}". Change nothing else.'])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.005,
                      max_steps={"easy": 12, "medium": 18, "hard": 24}[difficulty], photo=target["name"],
                      album=album)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    index = gallery.photo_index(task, meta["photo"])

    def change(state: dict[str, Any]) -> None:
        state["gallery"]["photos"][index]["album"] = meta["album"]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


def _neighbour(task: cb.Task) -> dict[str, Any]:
    """The photo nearest the target in the roll that is not in the asked album."""
    roll = gallery.newest_first([p for p in task.metadata["data"]["gallery"]["photos"] if not p["deleted"]])
    index = [p["name"] for p in roll].index(task.metadata["photo"])
    near = sorted(range(len(roll)), key=lambda i: (abs(i - index), -i))
    return dict(next(roll[i] for i in near if i != index and roll[i]["album"] != task.metadata["album"]))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await gallery.add_to_album(Hand(session), gallery.setup_photo(task, task.metadata["photo"]), task.metadata["album"])


@cb.wrong_way
async def the_album_next_to_it(task: cb.Task, session: cb.Session) -> None:
    photo = gallery.setup_photo(task, task.metadata["photo"])
    albums = [
        a for a in task.metadata["data"]["gallery"]["albums"] if a not in (task.metadata["album"], photo["album"])
    ]
    await gallery.add_to_album(Hand(session), photo, albums[0])


@cb.wrong_way
async def the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await gallery.add_to_album(Hand(session), _neighbour(task), task.metadata["album"])


@cb.wrong_way
async def oracle_then_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await the_neighbour(task, session)
