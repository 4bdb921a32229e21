"""browser-remove-bookmark: in Browser, remove the bookmark of a named page.

Easy: eight pages, three bookmarks, the phone at home. Medium: fourteen pages, seven bookmarks, Browser
open on its History screen. Hard: thirty pages, twenty-eight bookmarks and the one to remove among
the last (the Bookmarks list must be scrolled), Notes on the launcher too.

The evaluator checks the whole state of the phone's apps: the bookmarks are setup's without that page's
address, in their order; the tabs and the history differ from setup's by browsing alone (as many tabs,
each as it was or on a page visited since, the history only grown by visits: opening the page and
using its "Remove bookmark" is allowed), and nothing else changed; no dialog or overlay left open.
Chance 0.01 (easy), 0.005 otherwise: a long press and its confirmation, or a bookmark opened and then
"Remove bookmark", among a dozen nodes a screen.

Wrong ways: ``removes_the_next_bookmark`` (its neighbour in the list), ``oracle_then_removes_another``
(one more removed) and ``opens_it_instead`` (the bookmark tapped: the page opens, the bookmark stays).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import browser, notes
from cua_bench_tasks_sim._phone.kit import (
    Hand,
    install,
    kept,
    loaders,
    phone,
    phone_task,
    score,
    settled,
    unchanged_but,
)

FAMILY = "browser-remove-bookmark"
SHAPE = {"easy": (8, 3), "medium": (14, 7), "hard": (30, 28)}  # pages, bookmarks


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, marks = SHAPE[difficulty]
    data = browser.sample(rng, count, tabs=rng.randint(1, 2), bookmarks=marks, history=rng.randint(2, 5))
    shown = data["tabs"][0]["address"]
    choices = data["bookmarks"][-4:] if difficulty == "hard" else data["bookmarks"]
    target = rng.choice([a for a in choices if a != shown])
    title = browser.page(data, target)["title"]  # type: ignore[index]
    apps = ["browser", "notes"] if difficulty == "hard" else ["browser"]
    seeded = {"browser": data, "notes": notes.sample(rng, 3)} if difficulty == "hard" else {"browser": data}
    opened = ("browser", "History") if difficulty == "medium" else None
    description = f'In Browser, remove the bookmark of the page "{title}". Keep the other bookmarks.'
    chance = 0.01 if difficulty == "easy" else 0.005
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=14,
                      target=target, title=title)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    now = phone(session).state().get("browser", {})
    was = kept(task)["browser"]

    def change(state: dict[str, Any]) -> None:
        state["browser"]["bookmarks"].remove(task.metadata["target"])
        for key in ("tabs", "tab", "history"):  # browsing: checked by ``browsed``
            state["browser"][key] = copy.deepcopy(now.get(key))

    ok = browser.browsed(was, now)
    return score(ok and settled(session) and unchanged_but(task, session, change))


async def to_bookmarks(hand: Hand) -> None:
    """Browser in front, on its Bookmarks screen."""
    await hand.launch("Browser")
    while not await hand.shows("textbox", "Address"):
        await hand.button("back")
    await hand.tap("button", "Bookmarks")


async def remove(hand: Hand, title: str) -> None:
    """On the Bookmarks screen: long press the bookmark, confirm."""
    within = ("list", "Bookmarks")
    await hand.scroll_to("listitem", title, within=within)
    await hand.long_press("listitem", title, within=within)
    await hand.tap("button", "Remove")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_bookmarks(hand)
    await remove(hand, task.metadata["title"])


def neighbour(task: cb.Task) -> str:
    data = task.metadata["data"]["browser"]
    marks = data["bookmarks"]
    at = marks.index(task.metadata["target"])
    return browser.page(data, marks[at - 1 if at + 1 == len(marks) else at + 1])["title"]  # type: ignore[index]


@cb.wrong_way
async def removes_the_next_bookmark(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_bookmarks(hand)
    await remove(hand, neighbour(task))


@cb.wrong_way
async def oracle_then_removes_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await remove(Hand(session), neighbour(task))


@cb.wrong_way
async def opens_it_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_bookmarks(hand)
    within = ("list", "Bookmarks")
    await hand.scroll_to("listitem", task.metadata["title"], within=within)
    await hand.tap("listitem", task.metadata["title"], within=within)
