"""The phone's Browser app, driven through taps, long presses, typing, swipes and the system buttons on a
real sim phone: a link opens its page (a visit, recorded as one), back returns to the page before, the
Address field keeps what is typed and opens a page only at a real address, bookmarks toggle and are
removed after a confirmation, history entries are removed one by one or all, tabs switch, open and
close, a long list scrolls to its last row, and a look changes nothing."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from support.phone_screen import act, fill, hold, installed, node, rows, tap, title

from cua_bench.nodes import find, find_all
from cua_bench.sim import SimDesktop
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import browser
from cua_core.actions import KeyPress, Point, Swipe, SystemButton


def page(address: str, title: str, links: list[str]) -> dict[str, Any]:
    return {"address": address, "title": title, "text": [f"About {title}."], "links": links}


PAGES = [
    page("news.example/world", "World news", ["Lisbon weather", "Hotels in Oslo"]),
    page("weather.example/lisbon", "Lisbon weather", ["Oslo - Wiki", "World news"]),
    page("travel.example/oslo", "Hotels in Oslo", ["Oslo - Wiki"]),
    page("wiki.example/oslo", "Oslo - Wiki", ["World news"]),
]


def state(**changes: Any) -> dict[str, Any]:
    data = {
        "pages": PAGES,
        "tabs": [{"address": "news.example/world", "back": []}, {"address": "wiki.example/oslo", "back": []}],
        "tab": 0,
        "bookmarks": ["travel.example/oslo"],
        "history": [
            {"address": "wiki.example/oslo", "title": "Oslo - Wiki", "via": "typed"},
            {"address": "news.example/world", "title": "World news", "via": "link"},
        ],
        "address": "",
    }
    return copy.deepcopy({**data, **changes})


def phone_with(data: dict[str, Any], seed: int = 0) -> tuple[SimDesktop, Phone]:
    return installed("browser", data, seed)


def opened(data: dict[str, Any] | None = None) -> tuple[SimDesktop, Phone]:
    desktop, phone = phone_with(state() if data is None else data)
    tap(desktop, "button", "Browser")
    return desktop, phone


def links(desktop: SimDesktop) -> list[str]:
    return [n["name"] for n in find_all(desktop.a11y(), role="link")]


def data(phone: Phone) -> dict[str, Any]:
    return phone.state()["browser"]


def test_the_root_shows_the_tab_s_page_and_a_look_anywhere_changes_nothing() -> None:
    desktop, phone = phone_with(state())
    before = phone.state()
    tap(desktop, "button", "Browser")
    assert title(desktop) == "World news" and links(desktop) == ["Lisbon weather", "Hotels in Oslo"]
    assert find(desktop.a11y(), role="label", name="news.example/world")
    assert node(desktop, "textbox", "Address")["value"] == ""
    for screen in ("Bookmarks", "History", "Tabs"):
        tap(desktop, "button", screen)
        assert title(desktop) == screen
        act(desktop, SystemButton("back"))
        assert title(desktop) == "World news"
    act(desktop, SystemButton("home"), SystemButton("recent"), SystemButton("back"))
    assert phone.state() == before


def test_a_link_opens_its_page_as_a_visit_and_back_returns_to_the_page_before() -> None:
    desktop, phone = opened()
    tap(desktop, "link", "Lisbon weather")
    assert title(desktop) == "Lisbon weather" and links(desktop) == ["Oslo - Wiki", "World news"]
    tap(desktop, "link", "Oslo - Wiki")
    now = data(phone)
    assert now["tabs"][0] == {"address": "wiki.example/oslo", "back": ["news.example/world", "weather.example/lisbon"]}
    assert now["history"][2:] == [
        {"address": "weather.example/lisbon", "title": "Lisbon weather", "via": "link"},
        {"address": "wiki.example/oslo", "title": "Oslo - Wiki", "via": "link"},
    ]
    assert now["tabs"][1] == state()["tabs"][1]  # the other tab is left alone
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Lisbon weather"
    assert data(phone)["tabs"][0] == {"address": "weather.example/lisbon", "back": ["news.example/world"]}
    assert data(phone)["history"] == now["history"]  # going back is no visit
    act(desktop, SystemButton("back"))
    assert title(desktop) == "World news" and data(phone)["tabs"][0]["back"] == []
    act(desktop, SystemButton("back"))  # nothing to go back to: the app closes
    assert phone.current is None


def test_the_address_field_keeps_what_is_typed_and_opens_only_a_real_address() -> None:
    desktop, phone = opened()
    before = data(phone)
    fill(desktop, "Address", "travel.example/osl")
    assert data(phone) == {**before, "address": "travel.example/osl"}
    act(desktop, KeyPress(("enter",)))
    assert find(desktop.a11y(), role="label", name="No page at travel.example/osl")
    assert data(phone) == {**before, "address": "travel.example/osl"} and title(desktop) == "World news"
    fill(desktop, "Address", "https://Travel.example/oslo/")
    act(desktop, KeyPress(("enter",)))
    assert title(desktop) == "Hotels in Oslo"
    assert node(desktop, "textbox", "Address")["value"] == "" and data(phone)["address"] == ""
    assert data(phone)["history"][-1] == {"address": "travel.example/oslo", "title": "Hotels in Oslo", "via": "typed"}
    assert data(phone)["tabs"][0] == {"address": "travel.example/oslo", "back": ["news.example/world"]}
    assert not find_all(desktop.a11y(), role="label", name="No page at travel.example/osl")


def test_the_bookmark_button_adds_and_removes_the_page_shown() -> None:
    desktop, phone = opened()
    tap(desktop, "button", "Add bookmark")
    assert data(phone)["bookmarks"] == ["travel.example/oslo", "news.example/world"]
    assert not find_all(desktop.a11y(), role="button", name="Add bookmark")
    tap(desktop, "button", "Remove bookmark")
    assert data(phone) == state()
    tap(desktop, "link", "Hotels in Oslo")  # bookmarked already
    tap(desktop, "button", "Remove bookmark")
    assert data(phone)["bookmarks"] == []


def test_bookmarks_open_by_a_tap_and_go_after_a_confirmed_long_press() -> None:
    desktop, phone = opened(state(bookmarks=["travel.example/oslo", "wiki.example/oslo"]))
    tap(desktop, "button", "Bookmarks")
    assert rows(desktop) == ["Hotels in Oslo", "Oslo - Wiki"]
    before = data(phone)
    hold(desktop, "listitem", "Oslo - Wiki")
    assert find(desktop.a11y(), role="label", name='Remove the bookmark "Oslo - Wiki"?')
    tap(desktop, "button", "Cancel")
    assert data(phone) == before and rows(desktop) == ["Hotels in Oslo", "Oslo - Wiki"]
    hold(desktop, "listitem", "Oslo - Wiki")
    tap(desktop, "button", "Remove")
    assert data(phone) == {**before, "bookmarks": ["travel.example/oslo"]} and rows(desktop) == ["Hotels in Oslo"]
    tap(desktop, "listitem", "Hotels in Oslo")
    assert title(desktop) == "Hotels in Oslo"
    assert data(phone)["history"][-1]["via"] == "bookmark"


def test_history_is_newest_first_and_loses_one_visit_or_all_after_a_confirmation() -> None:
    desktop, phone = opened()
    tap(desktop, "link", "Hotels in Oslo")
    tap(desktop, "button", "History")
    assert rows(desktop) == ["Hotels in Oslo", "World news", "Oslo - Wiki"]
    before = data(phone)
    hold(desktop, "listitem", "World news")
    tap(desktop, "button", "Cancel")
    assert data(phone) == before
    hold(desktop, "listitem", "World news")
    tap(desktop, "button", "Remove")
    assert data(phone)["history"] == [before["history"][0], before["history"][2]]
    assert rows(desktop) == ["Hotels in Oslo", "Oslo - Wiki"]
    tap(desktop, "listitem", "Oslo - Wiki")  # opens it: a visit from the history
    assert title(desktop) == "Oslo - Wiki" and data(phone)["history"][-1]["via"] == "history"
    tap(desktop, "button", "History")
    tap(desktop, "button", "Clear history")
    tap(desktop, "button", "Cancel")
    assert len(data(phone)["history"]) == 3
    tap(desktop, "button", "Clear history")
    tap(desktop, "button", "Clear")
    assert data(phone)["history"] == [] and rows(desktop) == []


def test_tabs_switch_open_empty_and_close_after_a_confirmation() -> None:
    desktop, phone = opened()
    tap(desktop, "button", "Tabs")
    assert rows(desktop) == ["1. World news", "2. Oslo - Wiki"]
    tap(desktop, "listitem", "2. Oslo - Wiki")
    assert title(desktop) == "Oslo - Wiki" and data(phone)["tab"] == 1
    tap(desktop, "button", "Tabs")
    tap(desktop, "button", "New tab")
    assert title(desktop) == "New tab" and not links(desktop)
    assert data(phone)["tabs"][2] == {"address": "", "back": []} and data(phone)["tab"] == 2
    assert "disabled" in node(desktop, "button", "Add bookmark")["states"]  # nothing to bookmark
    fill(desktop, "Address", "weather.example/lisbon")
    act(desktop, KeyPress(("enter",)))
    assert data(phone)["tabs"][2] == {"address": "weather.example/lisbon", "back": []}
    tap(desktop, "button", "Tabs")
    before = data(phone)
    hold(desktop, "listitem", "1. World news")
    tap(desktop, "button", "Cancel")
    assert data(phone) == before
    hold(desktop, "listitem", "1. World news")
    tap(desktop, "button", "Close")
    assert rows(desktop) == ["1. Oslo - Wiki", "2. Lisbon weather"]
    assert data(phone)["tab"] == 1 and title(desktop) == "Tabs"  # the tab shown is still shown
    for row in ("2. Lisbon weather", "1. Oslo - Wiki"):
        hold(desktop, "listitem", row)
        tap(desktop, "button", "Close")
    assert data(phone)["tabs"] == [{"address": "", "back": []}] and data(phone)["tab"] == 0


def test_a_long_history_scrolls_to_its_oldest_visit() -> None:
    web = browser.sample(random.Random(7), 30, history=30)
    desktop, _ = opened(web)
    tap(desktop, "button", "History")
    oldest = web["history"][0]["title"]
    assert oldest not in rows(desktop)
    listed = node(desktop, "list", "History")
    left, top, right, bottom = listed["bounds"]
    for _ in range(10):
        if oldest in rows(desktop):
            break
        x = (left + right) / 2
        act(desktop, Swipe(Point(x, top + 0.8 * (bottom - top)), Point(x, top + 0.2 * (bottom - top))))
    assert rows(desktop)[-1] == oldest


def test_a_notification_opens_its_page_and_a_screen_target_its_screen() -> None:
    desktop, phone = phone_with(state())
    before = phone.state()
    phone.notify("browser", "Price drop", "Hotels in Oslo", target="travel.example/oslo")
    phone.open_notification(phone.notifications[0])
    assert title(desktop) == "Hotels in Oslo" and data(phone)["history"][-1]["via"] == "notification"
    desktop, phone = phone_with(state())
    phone.open_app("browser", "History")
    assert title(desktop) == "History" and phone.state() == before


def test_the_sample_is_seeded_json_and_every_page_is_reached_by_links_from_the_first() -> None:
    one, two = browser.sample(random.Random(3), 12, tabs=3), browser.sample(random.Random(3), 12, tabs=3)
    assert one == two and json.loads(json.dumps(one)) == one
    assert len({p["address"] for p in one["pages"]}) == len({p["title"] for p in one["pages"]}) == 12
    assert len(one["tabs"]) == 3 and one["tab"] == 0 and one["address"] == ""
    reached, todo = set(), [one["tabs"][0]["address"]]
    while todo:
        here = todo.pop()
        if here not in reached:
            reached.add(here)
            todo += browser.links_from(one, here)
    assert reached == {p["address"] for p in one["pages"]}
    assert all(2 <= len(p["links"]) <= 4 for p in one["pages"])


@pytest.mark.parametrize(
    ("change", "ok"),
    [
        (lambda s: s["history"].append({"address": "wiki.example/oslo", "title": "Oslo - Wiki", "via": "link"}), True),
        (lambda s: s["tabs"][0].update(address="wiki.example/oslo"), False),  # on a page not visited
        (lambda s: s.update(tab=1), True),
        (lambda s: s["history"].pop(0), False),
        (lambda s: s["tabs"].append({"address": "", "back": []}), False),
        (lambda s: s["history"].append({"address": "wiki.example/x", "title": "X", "via": "link"}), False),
    ],
)
def test_browsed_tells_browsing_from_other_changes(change: Any, ok: bool) -> None:
    after = state()
    change(after)
    if after["history"][-1]["address"] == "wiki.example/oslo" and len(after["history"]) == 3:
        after["tabs"][0] = {"address": "wiki.example/oslo", "back": ["news.example/world"]}
    assert browser.browsed(state(), after) is ok
