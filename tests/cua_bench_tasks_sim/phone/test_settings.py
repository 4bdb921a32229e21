"""The phone's Settings app, driven through taps, drags, keys, typing and the system buttons on a real
sim phone: every switch, slider, choice and field reaches the store as it changes (so the adversary's
key presses on any of them change the state), Airplane mode turns the radios off, looking changes
nothing, a notification opens its section."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from support.phone_screen import act, installed, node, tap, title

from cua_bench.nodes import center, find
from cua_bench.sim import SimDesktop
from cua_bench.sim.events import KeyEvent
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import settings
from cua_core.actions import KeyPress, Point, Swipe, SystemButton, Tap, TypeText

SEEDED = {
    "network": {"wifi": True, "bluetooth": False, "airplane": False},
    "display": {"brightness": 40, "dark_mode": False, "font_size": "Default"},
    "sound": {"volume": 70, "ringtones": ["Bells", "Chimes", "Echo", "Harp"], "ringtone": "Echo", "vibrate": True},
    "about": {"device_name": "Maya's phone", "model": "Pixel 8 Pro"},
}


def phone_with(data: dict[str, Any] | None = None, seed: int = 0) -> tuple[SimDesktop, Phone]:
    return installed("settings", data, seed)


def open_section(desktop: SimDesktop, section: str) -> None:
    tap(desktop, "button", "Settings")
    tap(desktop, "listitem", section)
    assert title(desktop) == section


def store(phone: Phone) -> dict[str, Any]:
    return phone.app_data("settings")


def test_sample_is_seeded_json_and_sized_by_count() -> None:
    one, two = settings.sample(random.Random(4), 7), settings.sample(random.Random(4), 7)
    assert one == two and json.loads(json.dumps(one)) == one
    assert len(one["sound"]["ringtones"]) == 7 and one["sound"]["ringtone"] in one["sound"]["ringtones"]
    assert one["display"]["font_size"] in settings.FONT_SIZES and 0 <= one["display"]["brightness"] <= 100
    samples = [settings.sample(random.Random(seed), 4) for seed in range(60)]
    assert len({json.dumps(s, sort_keys=True) for s in samples}) == 60  # values vary by sample
    for s in samples:  # a phone in Airplane mode has its radios off
        network = s["network"]
        assert not (network["airplane"] and (network["wifi"] or network["bluetooth"]))
    assert len(settings.sample(random.Random(0), 1)["sound"]["ringtones"]) == 2  # a choice needs two


def test_looking_at_every_section_and_going_home_changes_nothing() -> None:
    desktop, phone = phone_with(SEEDED)
    before = phone.state()
    tap(desktop, "button", "Settings")
    assert [n["name"] for n in node(desktop, "list", "Settings")["children"]] == list(settings.SECTIONS)
    for section in settings.SECTIONS:
        tap(desktop, "listitem", section)
        assert title(desktop) == section
        act(desktop, SystemButton("back"))
        assert title(desktop) == "Settings"
    act(desktop, SystemButton("home"))
    assert phone.state() == before


def test_an_unseeded_settings_app_opens_without_writing_its_store() -> None:
    desktop, phone = phone_with()
    open_section(desktop, "Network")
    assert node(desktop, "checkbox", "Wi-Fi")["value"] is False
    act(desktop, SystemButton("back"))
    tap(desktop, "listitem", "Sound")
    assert node(desktop, "slider", "Volume")["value"] == 50
    act(desktop, SystemButton("home"))
    assert phone.state() == {}


def test_network_switches_reach_the_store_and_airplane_mode_turns_the_radios_off() -> None:
    desktop, phone = phone_with(SEEDED)
    open_section(desktop, "Network")
    tap(desktop, "checkbox", "Bluetooth")
    assert store(phone)["network"] == {"wifi": True, "bluetooth": True, "airplane": False}
    tap(desktop, "checkbox", "Airplane mode")
    assert store(phone)["network"] == {"wifi": False, "bluetooth": False, "airplane": True}
    assert node(desktop, "checkbox", "Wi-Fi")["value"] is False  # the screen shows it too
    assert node(desktop, "checkbox", "Bluetooth")["value"] is False
    tap(desktop, "checkbox", "Wi-Fi")  # Wi-Fi on a plane
    assert store(phone)["network"] == {"wifi": True, "bluetooth": False, "airplane": True}
    tap(desktop, "checkbox", "Airplane mode")  # off: the radios stay as they are
    assert store(phone)["network"] == {"wifi": True, "bluetooth": False, "airplane": False}
    act(desktop, SystemButton("back"), SystemButton("back"))  # left, and opened again: the same values
    open_section(desktop, "Network")
    assert (
        node(desktop, "checkbox", "Wi-Fi")["value"] is True and node(desktop, "checkbox", "Bluetooth")["value"] is False
    )


def test_airplane_mode_off_does_not_bring_the_radios_back() -> None:
    data = copy.deepcopy(SEEDED)
    data["network"] = {"wifi": False, "bluetooth": False, "airplane": True}
    desktop, phone = phone_with(data)
    open_section(desktop, "Network")
    tap(desktop, "checkbox", "Airplane mode")
    assert store(phone)["network"] == {"wifi": False, "bluetooth": False, "airplane": False}


def test_brightness_follows_a_tap_a_drag_and_the_arrow_keys_exactly() -> None:
    desktop, phone = phone_with(SEEDED)
    open_section(desktop, "Display")
    slider = node(desktop, "slider", "Brightness")
    left, top, right, bottom = slider["bounds"]
    y = (top + bottom) / 2
    act(desktop, Tap(Point(left + 0.75 * (right - left), y)))
    assert abs(store(phone)["display"]["brightness"] - 75) <= 1
    act(desktop, Swipe(Point(left + 0.75 * (right - left), y), Point(left + 0.2 * (right - left), y)))  # a drag
    assert abs(store(phone)["display"]["brightness"] - 20) <= 1
    value = store(phone)["display"]["brightness"]
    act(desktop, KeyPress(("right",)), KeyPress(("right",)), KeyPress(("left",)))
    assert store(phone)["display"]["brightness"] == value + 1 == node(desktop, "slider", "Brightness")["value"]
    act(desktop, KeyPress(("end",)))
    assert store(phone)["display"]["brightness"] == 100
    assert isinstance(store(phone)["display"]["brightness"], int)


def test_dark_mode_and_font_size_reach_the_store() -> None:
    desktop, phone = phone_with(SEEDED)
    open_section(desktop, "Display")
    tap(desktop, "checkbox", "Dark mode")
    tap(desktop, "combobox", "Font size")
    act(desktop, Tap(center(find([node(desktop, "list", "Font size")], role="listitem", name="Largest"))))
    assert store(phone)["display"] == {"brightness": 40, "dark_mode": True, "font_size": "Largest"}


def test_sound_volume_ringtone_and_vibrate_reach_the_store() -> None:
    desktop, phone = phone_with(SEEDED)
    open_section(desktop, "Sound")
    radios = [n["name"] for n in node(desktop, "radiogroup", "Ringtone")["children"]]
    assert radios == SEEDED["sound"]["ringtones"] and node(desktop, "radio", "Echo")["value"] is True
    tap(desktop, "radio", "Chimes")
    tap(desktop, "checkbox", "Vibrate")
    left, top, _, bottom = node(desktop, "slider", "Volume")["bounds"]
    act(desktop, Tap(Point(left + 1, (top + bottom) / 2)))
    sound = store(phone)["sound"]
    assert (sound["ringtone"], sound["vibrate"], sound["volume"]) == ("Chimes", False, 0)


def test_the_device_name_is_saved_as_it_is_typed_and_kept_after_back() -> None:
    desktop, phone = phone_with(SEEDED)
    open_section(desktop, "About")
    assert node(desktop, "label", "Model: Pixel 8 Pro")
    tap(desktop, "textbox", "Device name")
    act(desktop, KeyPress(("ctrl", "a")), TypeText("Omar's tablet"))
    assert store(phone)["about"]["device_name"] == "Omar's tablet"
    act(desktop, SystemButton("back"))
    tap(desktop, "listitem", "About")
    assert node(desktop, "textbox", "Device name")["value"] == "Omar's tablet"


@pytest.mark.parametrize("section", settings.SECTIONS)
def test_every_input_changed_by_keys_changes_the_store(section: str) -> None:
    """What the generic adversary does to an input (its own key handler: arrows, "x", space) always
    changes the state an evaluator compares: no input holds a value the store does not."""
    desktop, phone = phone_with(SEEDED)
    open_section(desktop, section)
    screen = phone.running["settings"].top
    inputs = [w for w in screen.all_widgets() if w.is_input]
    assert inputs
    for widget in inputs:
        before, value = phone.state(), copy.deepcopy(widget.value)
        for key, text in (("down", None), ("up", None), ("right", None), ("left", None), ("x", "x"), (" ", " ")):
            if widget.on_key(KeyEvent("space" if key == " " else key, text=text)) and widget.value != value:
                break
        assert widget.value != value, widget
        assert phone.state() != before, widget


def test_a_notification_opens_its_section_above_the_list() -> None:
    desktop, phone = phone_with(SEEDED)
    phone.notify("settings", "Name your phone", "Others will see it", target="About")
    act(desktop, Swipe(Point(500, 10), Point(500, 600)))
    tap(desktop, "button", "Name your phone")
    assert phone.current == "settings" and title(desktop) == "About"
    assert phone.notifications[0].opened
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Settings"
