"""browser-follow-links: in Browser, get from the page shown to a named page two or three links away by
tapping links on the pages, without typing its address or using bookmarks or history.

Easy: a web of eight pages, the target two links away, one tab, the phone at home. Medium: twelve
pages, three links away, two tabs (the second shown), Browser open on its page. Hard: sixteen pages,
three links away, three tabs (the last shown), Browser open on its History screen, Notes on the
launcher too.

The evaluator checks the whole state of the phone's apps: the shown tab is on the target page, and
every visit since setup is a link tapped on a page the tab had reached (the start page, or one
reached so since; the platform records how each page was opened, which an agent cannot write), the
history otherwise as it was; the bookmarks, the other tabs, the tab shown and the Address field
unchanged; no dialog or overlay left open. Chance 0.01 (easy 0.02): random taps rarely follow the two
or three right links without touching anything else.

Wrong ways: ``types_the_address`` (the target through the Address field), ``types_a_page_on_the_way``
(the page before it typed, then its link), ``stops_a_link_short`` and ``oracle_then_bookmarks_it`` (or
unbookmarks it, when it was bookmarked).
"""

from __future__ import annotations

import copy
import random
from collections import deque
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

FAMILY = "browser-follow-links"
SHAPE = {"easy": (8, 2, 1), "medium": (12, 3, 2), "hard": (16, 3, 3)}  # pages, links away, tabs


def path(state: dict[str, Any], start: str, goal: str) -> list[str]:
    """The addresses of a shortest way by links from ``start`` to ``goal`` (both included)."""
    came: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in browser.links_from(state, here):
            if there not in came:
                came[there] = here
                queue.append(there)
    if goal not in came:
        return []
    way = [goal]
    while (before := came[way[-1]]) is not None:
        way.append(before)
    return way[::-1]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, away, tabs = SHAPE[difficulty]
    while True:
        data = browser.sample(rng, count, tabs=tabs, bookmarks=rng.randint(1, 3), history=rng.randint(2, 5))
        start = data["tabs"][0]["address"]
        far = [p["address"] for p in data["pages"] if len(path(data, start, p["address"])) == away + 1]
        if far:
            break
    target = rng.choice(far)
    shown = tabs - 1  # the start page's tab is the last one: the tab shown
    data["tabs"] = data["tabs"][1:] + data["tabs"][:1]
    data["tab"] = shown
    title = browser.page(data, target)["title"]  # type: ignore[index]
    start_title = browser.page(data, start)["title"]  # type: ignore[index]
    apps = ["browser", "notes"] if difficulty == "hard" else ["browser"]
    seeded = {"browser": data, "notes": notes.sample(rng, 3)} if difficulty == "hard" else {"browser": data}
    opened = {"easy": None, "medium": ("browser", None), "hard": ("browser", "History")}[difficulty]
    description = (f'In Browser, starting from the page shown now ("{start_title}"), get to the page "{title}" by '
                   "tapping links on the pages. Do not type its address or open it from bookmarks or history, "
                   "and change nothing else.")  # fmt: skip
    chance = 0.02 if difficulty == "easy" else 0.01
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=16,
                      start=start, target=target)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


def followed(before: dict[str, Any], after: dict[str, Any], start: str, target: str) -> bool:
    """The shown tab went from ``start`` to ``target`` by links alone: each visit since ``before`` is a
    link on a page reached so (the start, or one so visited), and the tab ends on the target."""
    old, new = before["history"], after.get("history", [])
    if new[: len(old)] != old or len(new) == len(old) or len(after.get("tabs", [])) != len(before["tabs"]):
        return False
    reached = {start}
    for visit in new[len(old) :]:
        linked = {there for here in reached for there in browser.links_from(before, here)}
        if visit["via"] != "link" or visit["address"] not in linked:
            return False
        reached.add(visit["address"])
    tab = after["tabs"][before["tab"]]
    return tab["address"] == target and set(tab["back"]) <= reached


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    now = phone(session).state().get("browser", {})

    was = kept(task)["browser"]

    def change(state: dict[str, Any]) -> None:  # the tab and the history as they are; the rest as it was
        state["browser"]["history"] = copy.deepcopy(now["history"])
        state["browser"]["tabs"][was["tab"]] = copy.deepcopy(now["tabs"][was["tab"]])

    ok = followed(was, now, meta["start"], meta["target"])
    return score(ok and settled(session) and unchanged_but(task, session, change))


async def to_page(hand: Hand) -> None:
    """Browser in front, on the page of the tab shown."""
    await hand.launch("Browser")
    while not await hand.shows("textbox", "Address"):
        await hand.button("back")


async def follow(hand: Hand, task: cb.Task, start: str, upto: int | None = None) -> None:
    data = task.metadata["data"]["browser"]
    for address in path(data, start, task.metadata["target"])[1:upto]:
        await hand.tap("link", browser.page(data, address)["title"])  # type: ignore[index]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_page(hand)
    await follow(hand, task, task.metadata["start"])


async def open_address(hand: Hand, address: str) -> None:
    await hand.fill("Address", address)
    await hand.key("enter")


@cb.wrong_way
async def types_the_address(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_page(hand)
    await open_address(hand, task.metadata["target"])


@cb.wrong_way
async def types_a_page_on_the_way(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_page(hand)
    way = path(task.metadata["data"]["browser"], task.metadata["start"], task.metadata["target"])
    await open_address(hand, way[-2])
    await follow(hand, task, way[-2])


@cb.wrong_way
async def stops_a_link_short(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_page(hand)
    await follow(hand, task, task.metadata["start"], -1)


@cb.wrong_way
async def oracle_then_bookmarks_it(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.tap("button", "Add bookmark" if await hand.shows("button", "Add bookmark") else "Remove bookmark")
