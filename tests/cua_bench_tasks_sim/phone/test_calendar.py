"""The phone's Calendar app, driven through taps, typing, swipes and the system buttons on a real sim
phone: rows in date order, each edit saved as it is made, Delete asks, the New event form saves only a
whole event and back discards it, a long list scrolls to its last row, a notification opens its event."""

from __future__ import annotations

import random

import pytest
from support.phone_screen import act, fill, installed, node, rows, tap, title

from cua_bench.nodes import center, find, find_all
from cua_bench.sim import SimDesktop
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import calendar
from cua_core.actions import KeyPress, Point, Swipe, SystemButton, Tap

EVENTS = [  # in the list's order, as the app keeps them
    {"title": "Team meeting", "date": "2025-03-03", "time": "10:00", "place": "Office"},
    {"title": "Yoga class", "date": "2025-03-12", "time": "08:15", "place": ""},
    {"title": "Dentist", "date": "2025-03-12", "time": "09:30", "place": "Main Street Clinic"},
]


def phone_with(events: list[dict[str, str]], seed: int = 0) -> tuple[SimDesktop, Phone]:
    return installed("calendar", {"events": events}, seed)


def test_the_root_lists_the_events_by_date_then_time_and_opens_the_one_tapped() -> None:
    desktop, phone = phone_with(EVENTS)
    tap(desktop, "button", "Calendar")
    assert rows(desktop) == [
        "Mon 3 Mar · 10:00 Team meeting",
        "Wed 12 Mar · 08:15 Yoga class",
        "Wed 12 Mar · 09:30 Dentist",
    ]
    tap(desktop, "listitem", "Wed 12 Mar · 09:30 Dentist")
    assert title(desktop) == "Dentist"
    values = {n["name"]: n["value"] for n in find_all(desktop.a11y(), role="textbox")}
    assert values == {"Title": "Dentist", "Date": "2025-03-12", "Time": "09:30", "Place": "Main Street Clinic"}
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Calendar"
    tap(desktop, "listitem", "Wed 12 Mar · 09:30 Dentist")  # the same row opens again after back
    assert title(desktop) == "Dentist"
    assert phone.app_data("calendar")["events"] == EVENTS  # looking changed nothing


def test_each_field_of_an_event_is_saved_as_it_is_edited_and_the_store_keeps_the_list_order() -> None:
    desktop, phone = phone_with(EVENTS)
    tap(desktop, "button", "Calendar")
    tap(desktop, "listitem", "Mon 3 Mar · 10:00 Team meeting")
    stored = phone.app_data("calendar")["events"]
    fill(desktop, "Title", "Board meeting")
    assert stored[0]["title"] == "Board meeting" and title(desktop) == "Board meeting"
    fill(desktop, "Date", "2025-03-20")
    fill(desktop, "Time", "16:45")
    fill(desktop, "Place", "Room 4B")
    moved = {"title": "Board meeting", "date": "2025-03-20", "time": "16:45", "place": "Room 4B"}
    assert stored == [EVENTS[1], EVENTS[2], moved]  # now last by date, in the store as on the list
    act(desktop, SystemButton("back"))  # back keeps what was typed: it was saved as it was typed
    assert stored[2] == moved
    assert rows(desktop)[-1] == "Thu 20 Mar · 16:45 Board meeting"


def test_a_date_that_is_not_a_date_is_kept_as_typed_and_flagged() -> None:
    desktop, phone = phone_with(EVENTS)
    tap(desktop, "button", "Calendar")
    tap(desktop, "listitem", "Wed 12 Mar · 08:15 Yoga class")
    fill(desktop, "Date", "2025-02-30")
    assert [e["date"] for e in phone.app_data("calendar")["events"] if e["title"] == "Yoga class"] == ["2025-02-30"]
    assert node(desktop, "label", "The date is not a date (YYYY-MM-DD).")
    act(desktop, SystemButton("back"))
    assert "2025-02-30 · 08:15 Yoga class" in rows(desktop)


def test_delete_asks_and_cancel_keeps_the_event() -> None:
    desktop, phone = phone_with(EVENTS)
    tap(desktop, "button", "Calendar")
    tap(desktop, "listitem", "Wed 12 Mar · 09:30 Dentist")
    tap(desktop, "button", "Delete")
    assert node(desktop, "label", 'Delete "Dentist"?')
    tap(desktop, "button", "Cancel")
    assert phone.app_data("calendar")["events"] == EVENTS and title(desktop) == "Dentist"
    tap(desktop, "button", "Delete")
    act(desktop, SystemButton("back"))  # back answers no too
    assert phone.app_data("calendar")["events"] == EVENTS
    tap(desktop, "button", "Delete")
    dialog = find(desktop.a11y(), role="dialog")
    act(desktop, Tap(center(find(dialog["children"], role="button", name="Delete"))))
    assert phone.app_data("calendar")["events"] == [EVENTS[0], EVENTS[1]]
    assert title(desktop) == "Calendar" and "Wed 12 Mar · 09:30 Dentist" not in rows(desktop)


def test_new_event_saves_a_whole_event_once_and_clears_its_draft() -> None:
    desktop, phone = phone_with(EVENTS)
    tap(desktop, "button", "Calendar")
    tap(desktop, "button", "New event")
    assert title(desktop) == "New event"
    data = phone.app_data("calendar")
    fill(desktop, "Title", "Haircut")
    assert data["draft"] == {"title": "Haircut", "date": "", "time": "", "place": ""}  # the form is in the store
    tap(desktop, "button", "Save")
    assert node(desktop, "label", "The date is not a date (YYYY-MM-DD).") and len(data["events"]) == 3
    fill(desktop, "Date", "2025-03-07")
    fill(desktop, "Time", "7:30")  # not HH:MM
    tap(desktop, "button", "Save")
    assert node(desktop, "label", "The time is not a time (HH:MM).") and len(data["events"]) == 3
    fill(desktop, "Time", "17:30")
    fill(desktop, "Place", "Studio 2")
    tap(desktop, "button", "Save")
    made = {"title": "Haircut", "date": "2025-03-07", "time": "17:30", "place": "Studio 2"}
    assert data["events"] == [EVENTS[0], made, EVENTS[1], EVENTS[2]] and "draft" not in data  # in date order
    assert title(desktop) == "Calendar" and "Fri 7 Mar · 17:30 Haircut" in rows(desktop)


def test_new_event_needs_a_title_and_back_discards_the_form() -> None:
    desktop, phone = phone_with(EVENTS)
    tap(desktop, "button", "Calendar")
    tap(desktop, "button", "New event")
    fill(desktop, "Date", "2025-03-07")
    fill(desktop, "Time", "17:30")
    tap(desktop, "button", "Save")
    assert node(desktop, "label", "Give the event a title.")
    data = phone.app_data("calendar")
    assert data["draft"]["date"] == "2025-03-07" and len(data["events"]) == 3
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Calendar" and "draft" not in data and data["events"] == EVENTS
    tap(desktop, "button", "New event")  # a fresh form
    assert {n["value"] for n in find_all(desktop.a11y(), role="textbox")} == {""}


def test_a_form_emptied_again_leaves_no_draft() -> None:
    desktop, phone = phone_with(EVENTS)
    tap(desktop, "button", "Calendar")
    tap(desktop, "button", "New event")
    fill(desktop, "Place", "x")
    assert "draft" in phone.app_data("calendar")
    act(desktop, KeyPress(("backspace",)))
    assert "draft" not in phone.app_data("calendar")


def test_a_long_list_scrolls_to_its_last_row() -> None:
    data = calendar.sample(random.Random(3), 30)
    desktop, _ = phone_with(data["events"])
    tap(desktop, "button", "Calendar")
    ordered = [calendar.row(event) for event in calendar.in_order(data["events"])]
    shown = rows(desktop)
    assert shown == ordered[: len(shown)] and len(shown) < 30
    assert len(set(ordered)) == 30  # every row is its own
    box = node(desktop, "list", "Events")["bounds"]
    x = (box[0] + box[2]) / 2
    for _ in range(5):
        if ordered[-1] in rows(desktop):
            break
        act(desktop, Swipe(Point(x, box[1] + 0.8 * (box[3] - box[1])), Point(x, box[1] + 0.2 * (box[3] - box[1]))))
    assert rows(desktop)[-1] == ordered[-1]
    tap(desktop, "listitem", ordered[-1])
    assert node(desktop, "textbox", "Title")["value"] == calendar.in_order(data["events"])[-1]["title"]


def test_an_event_deleted_and_made_again_is_stored_as_it_was() -> None:
    desktop, phone = phone_with(EVENTS)
    tap(desktop, "button", "Calendar")
    tap(desktop, "listitem", "Wed 12 Mar · 08:15 Yoga class")
    tap(desktop, "button", "Delete")
    dialog = find(desktop.a11y(), role="dialog")
    act(desktop, Tap(center(find(dialog["children"], role="button", name="Delete"))))
    tap(desktop, "button", "New event")
    for field, text in (("Title", "Yoga class"), ("Date", "2025-03-12"), ("Time", "08:15")):
        fill(desktop, field, text)
    tap(desktop, "button", "Save")
    assert phone.app_data("calendar") == {"events": EVENTS}


def test_a_notification_opens_its_event_and_looking_changes_nothing() -> None:
    desktop, phone = phone_with(EVENTS)
    phone.notify("calendar", "Dentist at 09:30", "Wed 12 Mar", target="Wed 12 Mar · 09:30 Dentist")
    before = phone.state()
    phone.open_notification(phone.notifications[0])
    assert title(desktop) == "Dentist" and node(desktop, "textbox", "Time")["value"] == "09:30"
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Calendar"
    act(desktop, SystemButton("back"))
    assert phone.current is None and phone.state() == before


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sample_is_seeded_with_distinct_titles_in_one_month(seed: int) -> None:
    data = calendar.sample(random.Random(seed), 20)
    assert data == calendar.sample(random.Random(seed), 20)
    events = data["events"]
    assert len({e["title"] for e in events}) == 20
    assert len({e["date"][:7] for e in events}) == 1
    assert events == calendar.in_order(events)  # seeded in the order the app keeps
    assert all(calendar.valid_date(e["date"]) and calendar.valid_time(e["time"]) for e in events)
