"""browser-forget-page: in Browser, remove a named page from the history, keeping the rest of it.

Easy: eight pages, four visits in the history, the phone at home. Medium: fourteen pages, nine visits,
Browser open on its page. Hard: thirty pages, twenty-eight visits and the page among the oldest (the
History list, newest first, must be scrolled), Browser open on its Bookmarks screen, Notes on the
launcher too.

The evaluator checks the whole state of the phone's apps: the history is setup's without that page's
visit (it is there once), the other visits in their order; the tabs, the tab shown, the bookmarks and
the Address field as they were (opening a page is a visit: it would be in the history), nothing else
changed; no dialog or overlay left open. Chance 0.005: a long press on the right row and its
confirmation.

Wrong ways: ``removes_the_visit_above`` (its neighbour in the list), ``clears_the_history`` (every visit
gone), ``oracle_then_removes_another`` and ``opens_it_then_removes_it`` (the page opened from the
history, then the newest of its visits removed: the old visit stays, the tab is moved).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import browser, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "browser-forget-page"
SHAPE = {"easy": (8, 4), "medium": (14, 9), "hard": (30, 28)}  # pages, visits


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, visits = SHAPE[difficulty]
    data = browser.sample(rng, count, tabs=rng.randint(1, 2), bookmarks=rng.randint(1, 3), history=visits)
    history = data["history"]
    at = rng.randrange(3) if difficulty == "hard" else rng.randrange(len(history))  # hard: among the oldest
    title = history[at]["title"]
    above = history[at + 1 if at + 1 < len(history) else at - 1]["title"]  # newer: above it on screen
    apps = ["browser", "notes"] if difficulty == "hard" else ["browser"]
    seeded = {"browser": data, "notes": notes.sample(rng, 3)} if difficulty == "hard" else {"browser": data}
    opened = {"easy": None, "medium": ("browser", None), "hard": ("browser", "Bookmarks")}[difficulty]
    description = (f'In Browser, remove the page "{title}" from the history. Keep the other pages in the history '
                   "as they are.")  # fmt: skip
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=0.005, max_steps=14, at=at,
                      title=title, above=above)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    def change(state: dict[str, Any]) -> None:
        del state["browser"]["history"][task.metadata["at"]]

    return score(settled(session) and unchanged_but(task, session, change))


async def to_history(hand: Hand) -> None:
    """Browser in front, on its History screen."""
    await hand.launch("Browser")
    while not await hand.shows("textbox", "Address"):
        await hand.button("back")
    await hand.tap("button", "History")


async def remove(hand: Hand, title: str) -> None:
    """On the History screen: long press the page's row, confirm."""
    within = ("list", "History")
    await hand.scroll_to("listitem", title, within=within)
    await hand.long_press("listitem", title, within=within)
    await hand.tap("button", "Remove")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_history(hand)
    await remove(hand, task.metadata["title"])


@cb.wrong_way
async def removes_the_visit_above(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_history(hand)
    await remove(hand, task.metadata["above"])


@cb.wrong_way
async def clears_the_history(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_history(hand)
    await hand.tap("button", "Clear history")
    await hand.tap("button", "Clear")


@cb.wrong_way
async def oracle_then_removes_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await remove(Hand(session), task.metadata["above"])


@cb.wrong_way
async def opens_it_then_removes_it(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_history(hand)
    within = ("list", "History")
    await hand.scroll_to("listitem", task.metadata["title"], within=within)
    await hand.tap("listitem", task.metadata["title"], within=within)
    await hand.tap("button", "History")
    await remove(hand, task.metadata["title"])
