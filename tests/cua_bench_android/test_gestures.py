"""Every action's adb command line, the refusals, and how text is escaped for ``input text``.

The device is the fake adb (conftest.py) with a 1080x2400 screen (``wm size`` as its documentation shows
it); nothing here was recorded from a device. A normalised point [x, y] in [0, 1000] is the pixel
``floor(x * 1080 / 1000), floor(y * 2400 / 1000)`` (``cua_core.to_pixels``).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import pytest

from cua_bench_android import AndroidSession, Untypeable, text_commands
from cua_core import (
    Action,
    Click,
    Drag,
    HoldKey,
    KeyDown,
    KeyPress,
    KeyUp,
    LongPress,
    MouseDown,
    MouseMove,
    MouseUp,
    Pinch,
    Point,
    Screenshot,
    Scroll,
    Swipe,
    SystemButton,
    Tap,
    TypeText,
    Wait,
)

if TYPE_CHECKING:  # the fixture's class, for annotations only: pytest imports conftest files by itself
    from conftest import FakeAdb

SUPPORTED = "the android backend supports tap, long_press, swipe, type, key"


def act(adb: FakeAdb, actions: list[Action], *commands: str, **answer: Any) -> list[str | None]:
    """Apply ``actions`` on a device that answers each of ``commands``; asserts they were exactly what was sent."""
    adb.load(adb.connect(), *[adb.shell(command, **answer) for command in commands])
    session = AndroidSession.connect(str(adb.path))
    reasons = asyncio.run(session.apply(actions))
    assert adb.calls()[2:] == [["-s", "emulator-5554", "shell", command] for command in commands]
    adb.check()
    return reasons


@pytest.mark.parametrize(
    ("action", "command"),
    [
        (Tap(Point(500, 500)), "input tap 540 1200"),
        (Tap(Point(0, 1000)), "input tap 0 2399"),  # the far edge is the last pixel
        (Tap(Point(250.5, 100), clicks=2), "input tap 270 240 && input tap 270 240"),  # one round trip: a double tap
        (Click(Point(500, 500)), "input tap 540 1200"),  # a desktop agent's click is a tap
        (Click(Point(500, 500), clicks=3), "input tap 540 1200 && input tap 540 1200 && input tap 540 1200"),
        (LongPress(Point(100, 900)), "input swipe 108 2160 108 2160 1000"),
        (LongPress(Point(100, 900), duration=2.5), "input swipe 108 2160 108 2160 2500"),
        (Swipe(Point(500, 800), Point(500, 200)), "input swipe 540 1920 540 480 500"),
        (Swipe(Point(900, 500), Point(100, 500), duration=0.25), "input swipe 972 1200 108 1200 250"),
        (KeyPress(("enter",)), "input keyevent KEYCODE_ENTER"),
        (KeyPress(("backspace",)), "input keyevent KEYCODE_DEL"),
        (KeyPress(("a",)), "input keyevent KEYCODE_A"),
        (KeyPress(("7",)), "input keyevent KEYCODE_7"),
        (KeyPress(("f12",)), "input keyevent KEYCODE_F12"),
        (KeyPress(("up",)), "input keyevent KEYCODE_DPAD_UP"),
        (KeyPress(("ctrl", "a")), "input keycombination KEYCODE_CTRL_LEFT KEYCODE_A"),
        (KeyPress(("ctrl", "shift", "z")), "input keycombination KEYCODE_CTRL_LEFT KEYCODE_SHIFT_LEFT KEYCODE_Z"),
    ],
)
def test_each_gesture_and_key_is_one_input_command(adb: FakeAdb, action: Action, command: str) -> None:
    assert act(adb, [action], command) == [None]


@pytest.mark.parametrize(
    ("button", "keycode"),
    [
        ("home", "KEYCODE_HOME"), ("back", "KEYCODE_BACK"), ("menu", "KEYCODE_MENU"),
        ("recent", "KEYCODE_APP_SWITCH"), ("enter", "KEYCODE_ENTER"), ("power", "KEYCODE_POWER"),
        ("volume_up", "KEYCODE_VOLUME_UP"), ("volume_down", "KEYCODE_VOLUME_DOWN"),
    ],
)  # fmt: skip
def test_system_buttons_are_key_events(adb: FakeAdb, button: Any, keycode: str) -> None:
    assert act(adb, [SystemButton(button)], f"input keyevent {keycode}") == [None]


def test_text_is_typed_escaped_and_enter_pressed(adb: FakeAdb) -> None:
    command = "input text 'it'\"'\"'s%s$5%s&%s(ok);' && input keyevent KEYCODE_ENTER"
    assert act(adb, [TypeText("it's $5 & (ok);", press_enter=True)], command) == [None]


def test_text_with_lines_and_a_literal_percent_s(adb: FakeAdb) -> None:
    command = ("input text 100% && input text sure && input keyevent KEYCODE_ENTER && input text a%sb "
               "&& input keyevent KEYCODE_TAB && input text c")  # fmt: skip
    assert act(adb, [TypeText("100%sure\na b\tc")], command) == [None]


def test_untypeable_text_is_refused_naming_the_characters_and_nothing_is_typed(adb: FakeAdb) -> None:
    [reason] = act(adb, [TypeText("café 😀 ok")])
    assert reason is not None
    assert reason.startswith("type: adb's `input text` types printable ASCII only")
    assert "'é' (U+00E9), '😀' (U+1F600)" in reason
    assert SUPPORTED in reason


def test_wait_sleeps_without_a_command_and_screenshot_is_the_servers(adb: FakeAdb) -> None:
    started = time.monotonic()
    assert act(adb, [Wait(0.3), Screenshot()]) == [None, None]
    assert time.monotonic() - started >= 0.3


@pytest.mark.parametrize(
    ("action", "why"),
    [
        (Pinch(Point(500, 500), 2.0), "pinch: adb's `input` injects one touch point at a time, so a two-finger pinch"),
        (Scroll("down", 3), "scroll: a phone scrolls by dragging its content: send a swipe"),
        (Drag(Point(1, 1), Point(2, 2)), "drag: send a swipe"),
        (Click(), "click: a phone has no pointer to click where it is: give the click a coordinate"),
        (Click(Point(5, 5), button="right"), "click: a touch screen has no right button (a long_press opens"),
        (MouseMove(Point(5, 5)), "mouse_move: a touch screen has no pointer"),
        (MouseDown(), "mouse_down: a touch screen has no pointer"),
        (MouseUp(), "mouse_up: a touch screen has no pointer"),
        (KeyDown("shift"), "key_down: adb's `input` presses and releases keys at once"),
        (KeyUp("shift"), "key_up: adb's `input` presses and releases keys at once"),
        (HoldKey(("a",), 1.0), "hold_key: adb's `input` presses and releases keys at once"),
        (KeyPress(("f13",)), "key: no Android key code for 'f13'"),
        (KeyPress(("ctrl", "!")), "key: no Android key code for '!'"),
    ],
)
def test_what_input_cannot_do_is_refused_naming_what_it_can(adb: FakeAdb, action: Action, why: str) -> None:
    [reason] = act(adb, [action])
    assert reason is not None
    assert reason.startswith(why)
    assert SUPPORTED in reason


def test_a_refusal_does_not_stop_the_actions_after_it(adb: FakeAdb) -> None:
    reasons = act(adb, [Pinch(Point(500, 500), 0.5), Tap(Point(500, 500))], "input tap 540 1200")
    assert reasons[0] is not None and reasons[0].startswith("pinch:")
    assert reasons[1] is None


def test_a_command_the_device_refuses_is_the_agents_reason(adb: FakeAdb) -> None:
    # Android 12 has no `input keycombination` (added in 13): its input tool says so and exits 255.
    said = "Error: Unknown command: keycombination\n"
    [reason] = act(adb, [KeyPress(("ctrl", "a"))], "input keycombination KEYCODE_CTRL_LEFT KEYCODE_A",
                   stderr=said, exit=255)  # fmt: skip
    assert reason == (
        "key: the device refused `input keycombination KEYCODE_CTRL_LEFT KEYCODE_A` (code 255): "
        "Error: Unknown command: keycombination"
    )


# -- text escaping, without a device ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "commands"),
    [
        ("hello", ["input text hello"]),
        ("hello world", ["input text hello%sworld"]),  # spaces as %s: `input` turns each into a space
        ("  ", ["input text %s%s"]),
        ("a%sb", ["input text a%", "input text sb"]),  # a literal %s is cut so that it is never read as a space
        ("%s%s", ["input text %", "input text s%", "input text s"]),
        ("50% off", ["input text 50%%soff"]),  # "%%s": input types "%" then the space
        ("a;b|c&d", ["input text 'a;b|c&d'"]),  # quoted for the device's sh
        ("$HOME `id` *?[x] ~#!", ["input text '$HOME%s`id`%s*?[x]%s~#!'"]),
        ('say "hi"', ["input text 'say%s\"hi\"'"]),
        ("don't", ["input text 'don'\"'\"'t'"]),
        ("back\\slash", ["input text 'back\\slash'"]),
        ("-n", ["input text -n"]),
        ("one\ntwo", ["input text one", "input keyevent KEYCODE_ENTER", "input text two"]),
        (
            "crlf\r\nend\r",
            ["input text crlf", "input keyevent KEYCODE_ENTER", "input text end", "input keyevent KEYCODE_ENTER"],
        ),
        ("\tx", ["input keyevent KEYCODE_TAB", "input text x"]),
        ("", []),
    ],
)
def test_text_commands(text: str, commands: list[str]) -> None:
    assert text_commands(text) == commands


def typed_by_input(commands: list[str]) -> str:
    """What Android's ``input`` would type for ``commands``: the device's sh unquoting (shlex does as POSIX sh
    does), then InputShellCommand.sendText's escape ("%s" is a space), ENTER and TAB as their characters."""
    import shlex

    out = ""
    for command in commands:
        words = shlex.split(command)
        if words[:2] == ["input", "keyevent"]:
            out += {"KEYCODE_ENTER": "\n", "KEYCODE_TAB": "\t"}[words[2]]
            continue
        assert words[:2] == ["input", "text"] and len(words) == 3, command  # one word: input types only the first
        buff, i, escape = list(words[2]), 0, False
        while i < len(buff):  # sendText's loop, as AOSP writes it
            if escape:
                escape = False
                if buff[i] == "s":
                    buff[i] = " "
                    i -= 1
                    del buff[i]
            if buff[i] == "%":
                escape = True
            i += 1
        out += "".join(buff)
    return out


@pytest.mark.parametrize(
    "text",
    ["plain", "a b  c", "%s", "%%s", "100%sure", "% s", "%", "s%", "x%s%sy", "'\"$`\\ ;&|<>()*?[]{}#~!", "l1\nl2\tend"],
)
def test_what_input_would_type_is_the_text(text: str) -> None:
    assert typed_by_input(text_commands(text)) == text


def test_untypeable_names_each_character_once_in_order() -> None:
    with pytest.raises(Untypeable) as caught:
        text_commands("ñaña\x00€")
    assert caught.value.chars == ["ñ", "\x00", "€"]
    assert "'ñ' (U+00F1), '\\x00' (U+0000), '€' (U+20AC)" in str(caught.value)
