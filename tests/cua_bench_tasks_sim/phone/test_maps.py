"""The phone's Maps app (``maps``), driven through taps, typing, swipes and the system buttons on a real
sim phone: the root lists places nearest first (a long list scrolls to its last row) and its Search
field, written to the store as it is typed, filters them by name or category; Save keeps a place, its
Note is written as it is typed, Unsave asks and forgets it with its note; Directions writes the travel
mode as it is chosen and Start starts the route that End route ends; Saved lists the saved places; a
notification opens its place. Looking around changes nothing."""

from __future__ import annotations

import copy
import random
from typing import Any

from support.phone_screen import act, installed, labels, node, rows, tap, title

from cua_bench.nodes import center, find, find_all
from cua_bench.sim import SimDesktop
from cua_bench.sim.lists import ListView
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import maps
from cua_core.actions import KeyPress, Point, Swipe, SystemButton, Tap, TypeText


def place(name: str, category: str, distance: int, rating: int = 42) -> dict[str, Any]:
    return {"name": name, "category": category, "distance": distance, "rating": rating}


DATA: dict[str, Any] = {
    "places": [
        place("Blue Bean", "Cafe", 640),
        place("Old Chemist", "Pharmacy", 220, 47),
        place("River Gardens", "Park", 1500),
        place("Stone Cup", "Cafe", 90),
    ],
    "query": "",
    "saved": [{"place": "River Gardens", "note": "open late"}],
    "mode": "Drive",
}
ROWS = ["Stone Cup · Cafe · 90 m", "Old Chemist · Pharmacy · 220 m", "Blue Bean · Cafe · 640 m",
        "River Gardens · Park · 1500 m"]  # fmt: skip


def phone_with(data: dict[str, Any], apps: tuple[str, ...] = ("maps",)) -> tuple[SimDesktop, Phone]:
    return installed("maps", data, apps=apps)


def store(phone: Phone) -> dict[str, Any]:
    return phone.app_data("maps")


def search(desktop: SimDesktop, text: str) -> None:
    tap(desktop, "textbox", "Search")
    act(desktop, KeyPress(("ctrl", "a")), KeyPress(("backspace",)))
    if text:
        act(desktop, TypeText(text))


def confirm(desktop: SimDesktop, button: str) -> None:
    act(desktop, Tap(center(find(find_all(desktop.a11y(), role="dialog"), role="button", name=button))))


def test_root_lists_places_nearest_first_and_search_filters_by_name_or_category() -> None:
    desktop, phone = phone_with(DATA)
    tap(desktop, "button", "Maps")
    assert title(desktop) == "Maps" and rows(desktop) == ROWS and "No route" in labels(desktop)
    search(desktop, "CAFÉ")  # case and accents aside
    assert rows(desktop) == [ROWS[0], ROWS[2]] and store(phone)["query"] == "CAFÉ"
    search(desktop, "chem")
    assert rows(desktop) == [ROWS[1]] and store(phone)["query"] == "chem"
    search(desktop, "chemx")
    assert rows(desktop) == [] and store(phone)["query"] == "chemx"
    search(desktop, "")
    assert rows(desktop) == ROWS and store(phone)["query"] == ""


def test_save_keeps_the_place_its_note_is_written_and_unsave_asks_then_forgets_both() -> None:
    desktop, phone = phone_with(DATA)
    tap(desktop, "button", "Maps")
    tap(desktop, "listitem", ROWS[2])
    assert title(desktop) == "Blue Bean" and "Cafe · 640 m away" in labels(desktop)
    assert "Rated 4.2 of 5" in labels(desktop) and not find_all(desktop.a11y(), role="textbox", name="Note")
    tap(desktop, "button", "Save")
    assert store(phone)["saved"] == [*DATA["saved"], {"place": "Blue Bean", "note": ""}]
    assert title(desktop) == "Blue Bean" and node(desktop, "button", "Unsave")
    tap(desktop, "textbox", "Note")
    act(desktop, TypeText("try the cake"))
    assert store(phone)["saved"][-1] == {"place": "Blue Bean", "note": "try the cake"}
    before = phone.state()
    tap(desktop, "button", "Unsave")
    tap(desktop, "button", "Cancel")
    assert phone.state() == before
    tap(desktop, "button", "Unsave")
    confirm(desktop, "Unsave")
    assert store(phone)["saved"] == DATA["saved"] and node(desktop, "button", "Save")
    tap(desktop, "button", "Save")  # saved again: the old note is gone
    assert store(phone)["saved"][-1] == {"place": "Blue Bean", "note": ""}
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Maps"  # one screen for the place, however often it was saved


def test_saved_lists_the_saved_places_in_order_and_opens_them() -> None:
    data = copy.deepcopy(DATA)
    data["saved"].append({"place": "Stone Cup", "note": ""})
    desktop, _ = phone_with(data)
    tap(desktop, "button", "Maps")
    tap(desktop, "button", "Saved")
    assert title(desktop) == "Saved" and rows(desktop) == ["River Gardens", "Stone Cup"]
    tap(desktop, "listitem", "River Gardens")
    assert node(desktop, "textbox", "Note")["value"] == "open late"
    tap(desktop, "button", "Unsave")
    confirm(desktop, "Unsave")
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Saved" and rows(desktop) == ["Stone Cup"]  # the list shows the change


def test_directions_write_the_mode_and_start_and_end_a_route() -> None:
    desktop, phone = phone_with(DATA)
    tap(desktop, "button", "Maps")
    tap(desktop, "listitem", ROWS[1])
    tap(desktop, "button", "Directions")
    assert (
        title(desktop) == "Directions to Old Chemist" and node(desktop, "radiogroup", "Travel mode")["value"] == "Drive"
    )
    before = phone.state()
    act(desktop, SystemButton("back"))
    assert phone.state() == before  # looking at directions starts nothing
    tap(desktop, "button", "Directions")
    tap(desktop, "radio", "Walk")
    assert store(phone)["mode"] == "Walk" and "route" not in store(phone)
    assert "About 3 min walking" in labels(desktop)
    tap(desktop, "button", "Start")
    assert store(phone)["route"] == {"place": "Old Chemist", "mode": "Walk"}
    assert title(desktop) == "Route" and "Walk to Old Chemist, 220 m, about 3 min" in labels(desktop)
    act(desktop, SystemButton("back"), SystemButton("back"))
    assert title(desktop) == "Maps" and "Route: Walk to Old Chemist" in labels(desktop)
    tap(desktop, "button", "Route")
    tap(desktop, "button", "End route")
    assert "route" not in store(phone) and "No route" in labels(desktop)
    assert "disabled" in node(desktop, "button", "End route")["states"]
    assert store(phone)["mode"] == "Walk"  # the mode chosen stays


def test_a_long_list_scrolls_to_its_last_row() -> None:
    data = maps.atlas(random.Random(2), ["Park"] * 26, 1)
    desktop, _ = phone_with(data)
    tap(desktop, "button", "Maps")
    view = next(w for w in desktop.focused_window.all_widgets() if isinstance(w, ListView))  # type: ignore[union-attr]
    assert view.visible_rows() == 21  # the families' "below the fold" is row 22 on
    last = maps.place_row(maps.nearest_first(data["places"])[-1])
    assert last not in rows(desktop)
    box = node(desktop, "list", "Places")["bounds"]
    x = (box[0] + box[2]) / 2
    for _ in range(3):
        act(desktop, Swipe(Point(x, box[1] + 0.8 * (box[3] - box[1])), Point(x, box[1] + 0.2 * (box[3] - box[1]))))
    assert last in rows(desktop)


def test_a_notification_opens_its_place_above_the_root() -> None:
    desktop, phone = phone_with(DATA, ("notes", "maps"))
    phone.notify("maps", "A place for you", "Blue Bean", target="Blue Bean")
    act(desktop, Swipe(Point(500, 10), Point(500, 600)))
    tap(desktop, "button", "A place for you")
    assert phone.current == "maps" and title(desktop) == "Blue Bean"
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Maps"


def test_looking_everywhere_changes_nothing() -> None:
    data = {**copy.deepcopy(DATA), "route": {"place": "Blue Bean", "mode": "Bike"}}
    desktop, phone = phone_with(data)
    before = phone.state()
    tap(desktop, "button", "Maps")
    for row in ROWS:
        tap(desktop, "listitem", row)
        tap(desktop, "button", "Directions")
        act(desktop, SystemButton("back"), SystemButton("back"))
    tap(desktop, "button", "Saved")
    tap(desktop, "listitem", "River Gardens")
    act(desktop, SystemButton("back"), SystemButton("back"))
    tap(desktop, "button", "Route")
    act(desktop, SystemButton("home"))
    assert phone.state() == before


def test_helpers_and_sample() -> None:
    stone = DATA["places"][3]
    assert maps.lists(stone, "") and maps.lists(stone, " stone ") and maps.lists(stone, "café")
    assert not maps.lists(stone, "park") and not maps.lists(stone, "x")
    assert maps.search_allowed("park", "park", stone) and maps.search_allowed("", "cup", stone)
    assert not maps.search_allowed("", "cupx", stone)
    data = maps.sample(random.Random(3), 12)
    assert data == maps.sample(random.Random(3), 12) and len(data["places"]) == 12
    names = [p["name"] for p in data["places"]]
    distances = [p["distance"] for p in data["places"]]
    assert len(set(names)) == len(names) and len(set(distances)) == len(distances)
    assert not any("x" in f"{p['name']} {p['category']}".lower() for p in data["places"])
    assert data["mode"] in maps.MODES and "route" not in data
