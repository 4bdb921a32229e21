"""browser-bookmark: in Browser, bookmark a named page.

Easy: six pages, the page is the one shown, the phone at home. Medium: ten pages, three tabs, the page
open in a tab not shown, Browser open on its page. Hard: fourteen pages, the page linked from the one
shown, Browser open on its Bookmarks screen, Notes on the launcher too.

The evaluator checks the whole state of the phone's apps: the bookmarks are setup's with the page's
address after them; the tabs and the history differ from setup's by browsing alone (as many tabs, each
as it was or on a page visited since, the history only grown by visits: getting to the page is
allowed), and nothing else changed; no dialog or overlay left open. Chance 0.05 on easy (one tap on
"Add bookmark" among a dozen nodes), 0.01 otherwise.

Wrong ways: ``bookmarks_another_page`` (the page shown, or one it links to, instead),
``oracle_then_removes_a_bookmark`` (an older bookmark removed too) and ``oracle_then_opens_a_tab``
(a new empty tab left open).
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

FAMILY = "browser-bookmark"
SHAPE = {"easy": (6, 1), "medium": (10, 3), "hard": (14, 2)}  # pages, tabs
WHERE = {"easy": "it is the page shown", "medium": "it is open in another tab", "hard": "the page shown links to it"}


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, tabs = SHAPE[difficulty]
    data = browser.sample(rng, count, tabs=tabs, bookmarks=rng.randint(1, 3), history=rng.randint(2, 5))
    marked = set(data["bookmarks"])
    shown = browser.page(data, data["tabs"][0]["address"])
    assert shown is not None
    if difficulty == "easy":
        candidates = [shown["address"]]
    elif difficulty == "medium":
        candidates = [tab["address"] for tab in data["tabs"][1:]]
    else:
        candidates = browser.links_from(data, shown["address"])
    candidates = [a for a in candidates if a != shown["address"] or difficulty == "easy"]
    if not set(candidates) - marked:  # every candidate is bookmarked already: one of them is not, now
        data["bookmarks"].remove(candidates[0])
        marked.discard(candidates[0])
    target = rng.choice(sorted(set(candidates) - marked))
    if not data["bookmarks"]:  # one bookmark at least, to keep
        data["bookmarks"].append(rng.choice([p["address"] for p in data["pages"] if p["address"] != target]))
    title = browser.page(data, target)["title"]  # type: ignore[index]
    apps = ["browser", "notes"] if difficulty == "hard" else ["browser"]
    seeded = {"browser": data, "notes": notes.sample(rng, 3)} if difficulty == "hard" else {"browser": data}
    opened = {"easy": None, "medium": ("browser", None), "hard": ("browser", "Bookmarks")}[difficulty]
    description = (f'In Browser, bookmark the page "{title}" ({WHERE[difficulty]}). Keep the bookmarks there are, '
                   "and the tabs open.")  # fmt: skip
    chance = 0.05 if difficulty == "easy" else 0.01
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=12,
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
        state["browser"]["bookmarks"].append(task.metadata["target"])
        for key in ("tabs", "tab", "history"):  # browsing: checked by ``browsed``
            state["browser"][key] = copy.deepcopy(now.get(key))

    ok = browser.browsed(was, now)
    return score(ok and settled(session) and unchanged_but(task, session, change))


async def to_page(hand: Hand) -> None:
    """Browser in front, on the page of the tab shown."""
    await hand.launch("Browser")
    while not await hand.shows("textbox", "Address"):
        await hand.button("back")


async def show(hand: Hand, task: cb.Task) -> None:
    """The page to bookmark shown: it is, or its tab is switched to, or its link is followed."""
    title = task.metadata["title"]
    await to_page(hand)
    if await hand.shows("window", title):
        return
    if await hand.shows("link", title):
        await hand.tap("link", title)
        return
    data = task.metadata["data"]["browser"]
    index = next(i for i, tab in enumerate(data["tabs"]) if tab["address"] == task.metadata["target"])
    await hand.tap("button", "Tabs")
    await hand.tap("listitem", browser.tab_row(data, index))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await show(hand, task)
    await hand.tap("button", "Add bookmark")


@cb.wrong_way
async def bookmarks_another_page(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_page(hand)
    if await hand.shows("window", task.metadata["title"]):  # the page is the one shown: a page it links to
        links = [title for title in await hand.texts("link") if title != task.metadata["title"]]
        await hand.tap("link", links[0])
    if not await hand.shows("button", "Add bookmark"):
        await hand.tap("button", "Remove bookmark")  # it was bookmarked: it is not any more
        return
    await hand.tap("button", "Add bookmark")


@cb.wrong_way
async def oracle_then_removes_a_bookmark(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.tap("button", "Bookmarks")
    rows = await hand.texts("listitem", within=("list", "Bookmarks"))
    await hand.long_press("listitem", next(row for row in rows if row != task.metadata["title"]))
    await hand.tap("button", "Remove")


@cb.wrong_way
async def oracle_then_opens_a_tab(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.tap("button", "Tabs")
    await hand.tap("button", "New tab")
