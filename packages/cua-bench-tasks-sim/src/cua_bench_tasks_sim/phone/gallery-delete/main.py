"""gallery-delete: in Photos, delete a given photo (it goes to Recently deleted).

Easy: twelve photos, the photo named, within the first screen of the camera roll, the phone at home.
Medium: forty, the photo named and maybe below the first screen (scroll), Photos already open on
another photo. Hard: sixty, the photo given only as the newest or the oldest photo of an album (through
Albums, or by reading every photo's album), Notes open in front.

The evaluator checks the whole state of the phone's apps: the photos are setup's with only the target
marked deleted (still in the list: Recently deleted keeps it), and nothing else changed (no other photo,
album or note); no dialog or overlay left open. Chance 0.005: opening Photos, the one row among
twenty-odd, the toolbar's Delete and the dialog's Delete, by random taps.

Wrong ways: ``deletes_the_neighbour`` (the photo next to it instead), ``oracle_then_the_neighbour``
(both), ``oracle_then_deletes_it_for_good`` (then erased from Recently deleted as well).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import gallery, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "gallery-delete"
SHAPE = {"easy": 12, "medium": 40, "hard": 60}  # photos in the roll
SCREEN = 24  # rows of the roll on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = gallery.sample(rng, SHAPE[difficulty])
    roll = gallery.newest_first([p for p in data["photos"] if not p["deleted"]])
    apps, state = ["gallery"], {"gallery": data}
    opened: tuple[str, str | None] | None = None
    album = ""
    if difficulty == "easy":
        target = rng.choice(roll[: SCREEN - 4])
        which = target["name"]
    elif difficulty == "medium":
        target = rng.choice(roll)
        which = target["name"]
        opened = ("gallery", rng.choice([p for p in roll if p is not target])["name"])
    else:
        album = rng.choice(data["albums"])
        for photo in rng.sample(roll, 3):  # the album has three photos at least
            photo["album"] = album
        members = [p for p in roll if p["album"] == album]
        end = rng.choice(["newest", "oldest"])
        target = members[0] if end == "newest" else members[-1]
        which = f'the {end} photo in the album "{album}"'
        apps, state = ["gallery", "notes"], {"gallery": data, "notes": notes.sample(rng, 4)}
        opened = ("notes", None)
    description = rng.choice([f"In Photos, delete {which}. Change nothing else.",
                              f"Delete {which} in Photos (it goes to Recently deleted). Change nothing "
                              "else."])  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.005,
                      max_steps={"easy": 12, "medium": 18, "hard": 24}[difficulty], photo=target["name"],
                      album=album)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    index = gallery.photo_index(task, task.metadata["photo"])

    def change(state: dict[str, Any]) -> None:
        state["gallery"]["photos"][index]["deleted"] = True

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def delete(hand: Hand, photo: dict[str, Any], album: str = "") -> None:
    """The photo opened from the roll (from its album's list, given ``album``), then deleted."""
    await gallery.to_roll(hand)
    where = gallery.ROLL
    if album:
        await hand.tap("button", "Albums")
        await hand.tap("listitem", album, within=("list", "Album list"))
        where = ("list", f"Photos in {album}")
    await hand.scroll_to("listitem", gallery.row(photo), within=where)
    await hand.tap("listitem", gallery.row(photo), within=where)
    await hand.tap("button", "Delete")
    await hand.tap("button", "Delete", within=("dialog", "Photos"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), gallery.setup_photo(task, task.metadata["photo"]), task.metadata["album"])


@cb.wrong_way
async def deletes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), gallery.neighbour(task))


@cb.wrong_way
async def oracle_then_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await deletes_the_neighbour(task, session)


@cb.wrong_way
async def oracle_then_deletes_it_for_good(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await gallery.open_deleted(hand, gallery.setup_photo(task, task.metadata["photo"]))
    await hand.tap("button", "Delete permanently")
    await hand.tap("button", "Delete", within=("dialog", "Photos"))
