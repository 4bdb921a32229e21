"""The phone's Clock app, driven through taps, swipes, typing and the system buttons on a real sim phone:
the alarm list by time, an alarm's every edit reaching the store (so the adversary's key presses on any
of its inputs change the state), Delete and Remove asking first (Cancel changes nothing), New alarm's
Save adding and back discarding, the world clock's Add city, long lists scrolling to their last row,
a notification opening its alarm, and looking changing nothing."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from support.phone_screen import act, installed, node, swipe_up, tap, title

from cua_bench.nodes import center, find, find_all
from cua_bench.sim import SimDesktop
from cua_bench.sim.events import KeyEvent
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import clock
from cua_core.actions import KeyPress, Point, Scroll, Swipe, SystemButton, Tap, TypeText

SEEDED = {
    "alarms": [
        {"time": "07:30", "label": "Gym", "enabled": True},
        {"time": "06:15", "label": "Wake up", "enabled": False},
        {"time": "21:00", "label": "Meds", "enabled": True},
    ],
    "cities": ["Tokyo", "London"],
}


def phone_with(data: dict[str, Any] | None = None, seed: int = 0) -> tuple[SimDesktop, Phone]:
    return installed("clock", data, seed)


def rows(desktop: SimDesktop, name: str) -> list[str]:
    return [n["name"] for n in node(desktop, "list", name)["children"]]


def alarms(phone: Phone) -> list[dict[str, Any]]:
    return list(phone.app_data("clock")["alarms"])


def choose(desktop: SimDesktop, dropdown: str, option: str) -> None:
    tap(desktop, "combobox", dropdown)
    popup = node(desktop, "list", dropdown)
    options = clock.HOURS if dropdown == "Hour" else clock.MINUTES
    shown = [n["name"] for n in popup["children"]]
    if option not in shown:
        rows = options.index(option) - options.index(shown[0])
        act(desktop, Scroll("down" if rows > 0 else "up", abs(rows), center(popup)))
    act(desktop, Tap(center(find([node(desktop, "list", dropdown)], role="listitem", name=option))))


def test_sample_is_seeded_json_with_distinct_times_and_known_cities() -> None:
    one, two = clock.sample(random.Random(8), 30), clock.sample(random.Random(8), 30)
    assert one == two and json.loads(json.dumps(one)) == one
    times = [a["time"] for a in one["alarms"]]
    assert len(one["alarms"]) == 30 == len(set(times)) == len({a["label"] for a in one["alarms"]})
    assert all(t[:2] in clock.HOURS and t[3:] in clock.MINUTES for t in times)
    assert 2 <= len(one["cities"]) <= 4 and set(one["cities"]) <= set(clock.ZONES)
    assert len(clock.sample(random.Random(1), 40)["alarms"]) == 40  # more alarms than labels: labels repeat
    assert clock.sample(random.Random(1), 5) != clock.sample(random.Random(2), 5)


def test_the_list_shows_alarms_by_time_and_looking_changes_nothing() -> None:
    desktop, phone = phone_with(SEEDED)
    before = phone.state()
    tap(desktop, "button", "Clock")
    assert title(desktop) == "Alarms"
    assert rows(desktop, "Alarms") == ["06:15 Wake up (off)", "07:30 Gym", "21:00 Meds"]
    for row in rows(desktop, "Alarms"):
        tap(desktop, "listitem", row)
        assert title(desktop) == f"Alarm {row[:5]}"
        act(desktop, SystemButton("back"))
    tap(desktop, "button", "World clock")
    tap(desktop, "listitem", "Tokyo")
    assert title(desktop) == "Tokyo" and node(desktop, "label", "UTC+09:00")
    act(desktop, SystemButton("back"))
    tap(desktop, "button", "Add city")
    act(desktop, SystemButton("back"), SystemButton("back"))
    tap(desktop, "button", "New alarm")
    act(desktop, SystemButton("back"), SystemButton("home"))
    assert phone.state() == before


def test_an_unseeded_clock_opens_without_writing_its_store() -> None:
    desktop, phone = phone_with()
    tap(desktop, "button", "Clock")
    tap(desktop, "button", "World clock")
    tap(desktop, "button", "Add city")
    act(desktop, SystemButton("home"))
    assert phone.state() == {}


def test_an_alarms_edits_reach_the_store_and_the_list_as_they_are_made() -> None:
    desktop, phone = phone_with(SEEDED)
    tap(desktop, "button", "Clock")
    tap(desktop, "listitem", "07:30 Gym")
    assert node(desktop, "checkbox", "Enabled")["value"] is True
    assert (node(desktop, "combobox", "Hour")["value"], node(desktop, "combobox", "Minute")["value"]) == ("07", "30")
    tap(desktop, "checkbox", "Enabled")
    assert alarms(phone)[0] == {"time": "07:30", "label": "Gym", "enabled": False}
    tap(desktop, "textbox", "Label")
    act(desktop, KeyPress(("ctrl", "a")), TypeText("Swim"))
    assert alarms(phone)[0]["label"] == "Swim"
    choose(desktop, "Hour", "22")
    choose(desktop, "Minute", "05")
    assert alarms(phone)[0] == {"time": "22:05", "label": "Swim", "enabled": False}
    assert title(desktop) == "Alarm 22:05"
    act(desktop, SystemButton("back"))
    assert rows(desktop, "Alarms") == ["06:15 Wake up (off)", "21:00 Meds", "22:05 Swim (off)"]  # re-sorted
    assert [a["time"] for a in alarms(phone)] == ["22:05", "06:15", "21:00"]  # the store keeps its order


def test_every_input_of_an_alarm_changed_by_keys_changes_the_store() -> None:
    """What the generic adversary does to an input (its own key handler: arrows, "x", space) always
    changes the state an evaluator compares."""
    desktop, phone = phone_with(SEEDED)
    tap(desktop, "button", "Clock")
    tap(desktop, "listitem", "21:00 Meds")
    inputs = [w for w in phone.running["clock"].top.all_widgets() if w.is_input]
    assert {w.role for w in inputs} == {"checkbox", "textbox", "combobox"}
    for widget in inputs:
        before, value = phone.state(), copy.deepcopy(widget.value)
        for key, text in (("down", None), ("up", None), ("right", None), ("left", None), ("x", "x"), ("space", " ")):
            if widget.on_key(KeyEvent(key, text=text)) and widget.value != value:
                break
        assert widget.value != value and phone.state() != before, widget


def test_delete_asks_cancel_keeps_and_delete_removes_the_alarm() -> None:
    desktop, phone = phone_with(SEEDED)
    tap(desktop, "button", "Clock")
    tap(desktop, "listitem", "21:00 Meds")
    tap(desktop, "button", "Delete alarm")
    assert node(desktop, "dialog", "Clock") and node(desktop, "label", "Delete the 21:00 alarm?")
    tap(desktop, "button", "Cancel")
    assert alarms(phone) == SEEDED["alarms"] and title(desktop) == "Alarm 21:00"
    tap(desktop, "button", "Delete alarm")
    act(desktop, SystemButton("back"))  # back answers no, too
    assert alarms(phone) == SEEDED["alarms"]
    tap(desktop, "button", "Delete alarm")
    tap(desktop, "button", "Delete")
    assert alarms(phone) == SEEDED["alarms"][:2] and title(desktop) == "Alarms"
    assert rows(desktop, "Alarms") == ["06:15 Wake up (off)", "07:30 Gym"]


def test_new_alarm_saves_an_enabled_alarm_and_back_discards_it() -> None:
    desktop, phone = phone_with(SEEDED)
    tap(desktop, "button", "Clock")
    tap(desktop, "button", "New alarm")
    assert title(desktop) == "New alarm" and node(desktop, "combobox", "Hour")["value"] == phone.clock[:2]
    choose(desktop, "Hour", "05")
    act(desktop, SystemButton("back"))
    assert phone.app_data("clock") == SEEDED  # a draft is not an alarm
    tap(desktop, "button", "New alarm")
    choose(desktop, "Hour", "23")
    choose(desktop, "Minute", "45")
    tap(desktop, "textbox", "Label")
    act(desktop, TypeText("Bins out"))
    tap(desktop, "button", "Save")
    assert title(desktop) == "Alarms"
    assert alarms(phone) == [*SEEDED["alarms"], {"time": "23:45", "label": "Bins out", "enabled": True}]
    assert rows(desktop, "Alarms")[-1] == "23:45 Bins out"
    tap(desktop, "button", "New alarm")
    tap(desktop, "button", "Save")  # no label: "Alarm"
    assert alarms(phone)[-1] == {"time": f"{phone.clock[:2]}:00", "label": "Alarm", "enabled": True}


def test_add_city_lists_the_missing_cities_and_adds_the_tapped_one_at_the_end() -> None:
    desktop, phone = phone_with(SEEDED)
    tap(desktop, "button", "Clock")
    tap(desktop, "button", "World clock")
    assert title(desktop) == "World clock" and rows(desktop, "World clock") == ["Tokyo", "London"]
    tap(desktop, "button", "Add city")
    missing = sorted(set(clock.ZONES) - {"Tokyo", "London"})
    shown = rows(desktop, "Cities")
    assert shown == missing[: len(shown)] and len(shown) < len(missing)  # a long list: the rest below
    for _ in range(10):
        if missing[-1] in rows(desktop, "Cities"):
            break
        swipe_up(desktop, node(desktop, "list", "Cities"))
    tap(desktop, "listitem", missing[-1])
    assert phone.app_data("clock")["cities"] == ["Tokyo", "London", missing[-1]]
    assert title(desktop) == "World clock" and rows(desktop, "World clock") == ["Tokyo", "London", missing[-1]]
    tap(desktop, "button", "Add city")
    assert missing[-1] not in rows(desktop, "Cities") and "Tokyo" not in rows(desktop, "Cities")


def test_remove_city_asks_and_cancel_keeps_it() -> None:
    desktop, phone = phone_with(SEEDED)
    tap(desktop, "button", "Clock")
    tap(desktop, "button", "World clock")
    tap(desktop, "listitem", "London")
    assert node(desktop, "label", "UTC+00:00")
    tap(desktop, "button", "Remove city")
    tap(desktop, "button", "Cancel")
    assert phone.app_data("clock")["cities"] == ["Tokyo", "London"]
    tap(desktop, "button", "Remove city")
    tap(desktop, "button", "Remove")
    assert phone.app_data("clock")["cities"] == ["Tokyo"] and rows(desktop, "World clock") == ["Tokyo"]


def test_a_long_alarm_list_scrolls_to_its_last_alarm() -> None:
    data = clock.sample(random.Random(3), 30)
    desktop, phone = phone_with(data)
    tap(desktop, "button", "Clock")
    last = clock.row(max(data["alarms"], key=lambda a: a["time"]))
    assert last not in rows(desktop, "Alarms")
    for _ in range(10):
        if last in rows(desktop, "Alarms"):
            break
        swipe_up(desktop, node(desktop, "list", "Alarms"))
    tap(desktop, "listitem", last)
    assert title(desktop) == f"Alarm {last[:5]}"
    assert phone.app_data("clock") == data


def test_a_notification_opens_its_alarm_above_the_list() -> None:
    desktop, phone = phone_with(SEEDED)
    phone.notify("clock", "Alarm at 21:00", "Meds", target="21:00")
    act(desktop, Swipe(Point(500, 10), Point(500, 600)))
    tap(desktop, "button", "Alarm at 21:00")
    assert phone.current == "clock" and title(desktop) == "Alarm 21:00"
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Alarms"
    assert len(find_all(desktop.a11y(), role="listitem")) == 3
