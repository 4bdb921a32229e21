"""browser-new-tab: in Browser, open a given address in a new tab, keeping the tabs already open.

Easy: six pages, one tab, the phone at home. Medium: ten pages, two tabs, Browser open on its page.
Hard: fourteen pages, four tabs, Browser open on its History screen, Notes on the launcher too.

The evaluator checks the whole state of the phone's apps: the tabs are setup's with one more after
them, on the page at that address with nothing to go back to, and shown; the history is setup's with
one visit of that page after it, typed (or opened from a bookmark or the history, in the new tab);
the bookmarks and the Address field as they were, nothing else changed; no dialog or overlay left
open. Chance 0 (the address is typed).

Wrong ways: ``opens_it_in_the_tab_shown`` (no new tab), ``opens_a_neighbouring_address`` (another page
of the same site in the new tab), ``oracle_then_closes_the_first_tab`` and ``leaves_the_new_tab_empty``
(the address typed but never opened).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import browser, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "browser-new-tab"
SHAPE = {"easy": (6, 1), "medium": (10, 2), "hard": (14, 4)}  # pages, tabs
OPENED_BY = ("typed", "bookmark", "history")


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, tabs = SHAPE[difficulty]
    data = browser.sample(rng, count, tabs=tabs, bookmarks=rng.randint(1, 3), history=rng.randint(2, 5))
    data["tab"] = rng.randrange(tabs)
    open_now = {tab["address"] for tab in data["tabs"]}
    target = rng.choice([p["address"] for p in data["pages"] if p["address"] not in open_now])
    site = target.split("/")[0]
    near = [p["address"] for p in data["pages"] if p["address"] != target and p["address"].startswith(site)]
    neighbour = rng.choice(near or [p["address"] for p in data["pages"] if p["address"] != target])
    apps = ["browser", "notes"] if difficulty == "hard" else ["browser"]
    seeded = {"browser": data, "notes": notes.sample(rng, 3)} if difficulty == "hard" else {"browser": data}
    opened = {"easy": None, "medium": ("browser", None), "hard": ("browser", "History")}[difficulty]
    kept_tabs = "the tab open" if tabs == 1 else f"the {tabs} tabs open"
    description = f"In Browser, open {target} in a new tab, and keep {kept_tabs}."
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=0.0, max_steps=18,
                      target=target, neighbour=neighbour)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    target = task.metadata["target"]
    history = phone(session).state().get("browser", {}).get("history", [])
    how = history[-1]["via"] if history and history[-1]["via"] in OPENED_BY else "typed"

    def change(state: dict[str, Any]) -> None:
        data = state["browser"]
        data["tabs"].append({"address": target, "back": []})
        data["tab"] = len(data["tabs"]) - 1
        data["history"].append({"address": target, "title": browser.page(data, target)["title"], "via": how})  # type: ignore[index]

    return score(settled(session) and unchanged_but(task, session, change))


async def to_page(hand: Hand) -> None:
    """Browser in front, on the page of the tab shown."""
    await hand.launch("Browser")
    while not await hand.shows("textbox", "Address"):
        await hand.button("back")


async def new_tab(hand: Hand, address: str, *, enter: bool = True) -> None:
    await to_page(hand)
    await hand.tap("button", "Tabs")
    await hand.tap("button", "New tab")
    await hand.fill("Address", address)
    if enter:
        await hand.key("enter")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await new_tab(Hand(session), task.metadata["target"])


@cb.wrong_way
async def opens_it_in_the_tab_shown(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await to_page(hand)
    await hand.fill("Address", task.metadata["target"])
    await hand.key("enter")


@cb.wrong_way
async def opens_a_neighbouring_address(task: cb.Task, session: cb.Session) -> None:
    await new_tab(Hand(session), task.metadata["neighbour"])


@cb.wrong_way
async def oracle_then_closes_the_first_tab(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.tap("button", "Tabs")
    await hand.long_press("listitem", (await hand.texts("listitem", within=("list", "Tabs")))[0])
    await hand.tap("button", "Close")


@cb.wrong_way
async def leaves_the_new_tab_empty(task: cb.Task, session: cb.Session) -> None:
    await new_tab(Hand(session), task.metadata["target"], enter=False)
