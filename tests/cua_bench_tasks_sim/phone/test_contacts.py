"""The Contacts phone app, driven by taps, typing, swipes and the system buttons on a sim phone."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from support.phone_screen import H, W, act, fill, installed, nodes, rows, tap
from support.phone_screen import window_title as title

from cua_bench.nodes import find
from cua_bench.sim import SimDesktop
from cua_bench.sim.apps import input_widgets
from cua_bench.sim.events import KeyEvent
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import contacts
from cua_core.actions import KeyPress, Swipe, SystemButton, from_pixels

PEOPLE = [
    {"id": 1, "name": "Ada Khan", "phone": "+1 555 100 1000", "email": "ada.khan@mail.com", "favourite": False},
    {"id": 2, "name": "Bruno Silva", "phone": "+1 555 200 2000", "email": "bruno.silva@post.net", "favourite": True},
    {"id": 3, "name": "Chen Ito", "phone": "+1 555 300 3000", "email": "chen.ito@web.de", "favourite": False},
]


def phone_with(people: list[dict[str, Any]], seed: int = 0) -> tuple[SimDesktop, Phone]:
    return installed("contacts", {"contacts": people, "next_id": 4}, seed)


def opened(seed: int = 0, people: list[dict[str, Any]] | None = None) -> tuple[SimDesktop, Phone]:
    desktop, phone = phone_with(PEOPLE if people is None else people, seed)
    tap(desktop, "button", "Contacts")
    return desktop, phone


def test_sample_is_seeded_json_like_with_distinct_names_and_numbers() -> None:
    one, two = contacts.sample(random.Random(3), 30), contacts.sample(random.Random(3), 30)
    assert one == two and json.loads(json.dumps(one)) == one and list(one) == ["contacts", "next_id"]
    people = one["contacts"]
    assert len(people) == 30 and len({p["name"] for p in people}) == 30 and len({p["phone"] for p in people}) == 30
    assert all(set(p) == {"id", "name", "phone", "email", "favourite"} and "@" in p["email"] for p in people)
    assert [p["id"] for p in people] == list(range(1, 31)) and one["next_id"] == 31
    assert {p["favourite"] for p in people} == {True, False}
    assert contacts.sample(random.Random(4), 30) != one


def test_the_list_is_sorted_by_name_and_a_swipe_reaches_the_last_row() -> None:
    people = contacts.sample(random.Random(1), 40)["contacts"]
    desktop, phone = opened(people=people)
    names = sorted((p["name"] for p in people), key=str.lower)
    first = rows(desktop)
    assert first == names[: len(first)] and 10 < len(first) < 40  # the list is longer than the screen
    for _ in range(5):
        act(desktop, Swipe(from_pixels(180, 600, W, H), from_pixels(180, 150, W, H)))
    assert rows(desktop)[-1] == names[-1] and names[0] not in rows(desktop)
    tap(desktop, "listitem", names[-1])
    assert title(desktop) == names[-1] and phone.app_data("contacts")["contacts"] == people  # opening changes nothing


def test_a_tap_opens_the_person_and_their_fields_show_their_details() -> None:
    desktop, phone = opened()
    before = phone.state()
    tap(desktop, "listitem", "Bruno Silva")
    assert title(desktop) == "Bruno Silva"
    values = {n["name"]: n["value"] for n in nodes(desktop, "textbox")}
    assert values == {"Name": "Bruno Silva", "Phone": "+1 555 200 2000", "Email": "bruno.silva@post.net"}
    assert find(desktop.a11y(), "checkbox", "Favourite")["value"] is True
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Contacts" and phone.state() == before
    tap(desktop, "listitem", "Bruno Silva")  # the same row opens the same person again
    assert title(desktop) == "Bruno Silva"


def test_each_edit_reaches_the_store_and_back_keeps_it() -> None:
    desktop, phone = opened()
    tap(desktop, "listitem", "Chen Ito")
    fill(desktop, "Phone", "+1 555 999 0000")
    fill(desktop, "Email", "chen@ito.org")
    tap(desktop, "checkbox", "Favourite")
    stored = phone.app_data("contacts")["contacts"][2]
    assert stored == {
        "id": 3,
        "name": "Chen Ito",
        "phone": "+1 555 999 0000",
        "email": "chen@ito.org",
        "favourite": True,
    }
    fill(desktop, "Name", "Aaron Ito")  # renamed: the list re-sorts
    act(desktop, SystemButton("back"))
    assert rows(desktop) == ["Aaron Ito", "Ada Khan", "Bruno Silva"]
    assert phone.app_data("contacts")["contacts"][2]["name"] == "Aaron Ito"
    assert [p["name"] for p in phone.app_data("contacts")["contacts"]] == ["Ada Khan", "Bruno Silva", "Aaron Ito"]
    tap(desktop, "listitem", "Aaron Ito")
    tap(desktop, "checkbox", "Favourite")
    assert phone.app_data("contacts")["contacts"][2]["favourite"] is False


def test_delete_asks_first_and_cancel_or_back_change_nothing() -> None:
    desktop, phone = opened()
    before = phone.state()
    tap(desktop, "listitem", "Ada Khan")
    tap(desktop, "button", "Delete contact")
    assert find(desktop.a11y(), "dialog", "Contacts") and desktop.modal_window() is not None
    tap(desktop, "button", "Cancel")
    assert phone.state() == before and title(desktop) == "Ada Khan"
    tap(desktop, "button", "Delete contact")
    act(desktop, SystemButton("back"))  # back answers no
    assert phone.state() == before and desktop.modal_window() is None and title(desktop) == "Ada Khan"
    tap(desktop, "button", "Delete contact")
    tap(desktop, "button", "Delete")
    assert title(desktop) == "Contacts" and rows(desktop) == ["Bruno Silva", "Chen Ito"]
    assert phone.state() == {"contacts": {"contacts": PEOPLE[1:], "next_id": 4}}


def test_search_filters_by_name_or_number_is_kept_in_the_store_and_a_picked_result_ends_it() -> None:
    desktop, phone = opened()
    fill(desktop, "Search", "an")
    assert rows(desktop) == ["Ada Khan"] and phone.app_data("contacts")["query"] == "an"
    fill(desktop, "Search", "i")
    assert rows(desktop) == ["Bruno Silva", "Chen Ito"]
    fill(desktop, "Search", "300 30")  # a number, as written or not
    assert rows(desktop) == ["Chen Ito"]
    fill(desktop, "Search", "5553003")
    assert rows(desktop) == ["Chen Ito"]
    fill(desktop, "Search", "zzz")
    assert rows(desktop) == []
    act(desktop, KeyPress(("ctrl", "a")), KeyPress(("backspace",)))
    assert "query" not in phone.app_data("contacts") and len(rows(desktop)) == 3
    fill(desktop, "Search", "bru")
    act(desktop, SystemButton("back"))  # the app closes; the search is part of its state
    assert phone.state()["contacts"]["query"] == "bru"
    tap(desktop, "button", "Contacts")
    assert find(desktop.a11y(), "textbox", "Search")["value"] == "bru" and rows(desktop) == ["Bruno Silva"]
    tap(desktop, "listitem", "Bruno Silva")
    assert title(desktop) == "Bruno Silva" and "query" not in phone.app_data("contacts")
    act(desktop, SystemButton("back"))
    assert find(desktop.a11y(), "textbox", "Search")["value"] == "" and len(rows(desktop)) == 3


def test_new_contact_saves_back_discards_and_a_name_is_needed() -> None:
    desktop, phone = opened()
    before = phone.state()
    tap(desktop, "button", "New contact")
    assert title(desktop) == "New contact"
    fill(desktop, "Phone", "+1 555 111 2222")
    assert phone.app_data("contacts")["draft"]["phone"] == "+1 555 111 2222"  # the form is in the store
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Contacts" and phone.state() == before  # discarded
    tap(desktop, "button", "New contact")
    fill(desktop, "Phone", "+1 555 111 2222")
    tap(desktop, "button", "Save")
    assert title(desktop) == "New contact" and find(desktop.a11y(), "label", "A contact needs a name.")
    assert phone.app_data("contacts")["contacts"] == PEOPLE
    fill(desktop, "Name", " Dana Weber ")
    fill(desktop, "Email", "dana@weber.de")
    tap(desktop, "checkbox", "Favourite")
    tap(desktop, "button", "Save")
    assert title(desktop) == "Contacts" and "Dana Weber" in rows(desktop)
    made = {"id": 4, "name": "Dana Weber", "phone": "+1 555 111 2222", "email": "dana@weber.de", "favourite": True}
    assert phone.state() == {"contacts": {"contacts": [*PEOPLE, made], "next_id": 5}}
    tap(desktop, "button", "New contact")  # a fresh form
    assert {n["value"] for n in nodes(desktop, "textbox")} == {""}
    fill(desktop, "Name", "Dana Weber")
    tap(desktop, "button", "Save")
    assert phone.app_data("contacts")["contacts"][-1]["id"] == 5  # a person added again is another entry
    tap(desktop, "listitem", "Ada Khan")
    tap(desktop, "button", "Delete contact")
    tap(desktop, "button", "Delete")
    tap(desktop, "button", "New contact")
    fill(desktop, "Name", "Ada Khan")
    tap(desktop, "button", "Save")
    assert phone.app_data("contacts")["contacts"][-1]["id"] == 6 and phone.app_data("contacts")["next_id"] == 7


def test_a_notification_target_opens_the_person_above_the_list() -> None:
    desktop, phone = phone_with(PEOPLE)
    phone.notify("contacts", "Birthday", "Chen Ito turns 40", target="Chen Ito")
    act(desktop, Swipe(from_pixels(180, 5, W, H), from_pixels(180, 400, W, H)))
    tap(desktop, "button", "Birthday")
    assert title(desktop) == "Chen Ito"
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Contacts"


@pytest.mark.parametrize("screen", ["root", "person", "new contact"])
def test_every_input_on_every_screen_reaches_the_store(screen: str) -> None:
    """What the adversary does to an input (keys until its value moves) changes the app's state, or
    moves nothing: an input the store does not see would let a mutation pass the evaluator."""
    for key in [("down", None), ("up", None), ("x", "x"), ("space", " ")]:
        desktop, phone = opened()
        if screen == "person":
            tap(desktop, "listitem", "Bruno Silva")
        elif screen == "new contact":
            tap(desktop, "button", "New contact")
        window = desktop.focused_window
        assert window is not None
        for place, widget in input_widgets([window]).items():
            before, value = phone.state(), copy.deepcopy(widget.value)
            widget.on_key(KeyEvent(key[0], text=key[1]))
            if widget.value != value:
                assert phone.state() != before, (screen, place, widget, key)
