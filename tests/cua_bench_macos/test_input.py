"""Actions to Quartz events, checked against Apple's numbers (fixtures/quartz_constants.json, from CoreGraphics'
CGEventTypes.h and HIToolbox's Events.h): the event types, buttons, flags and key codes the session posts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from cua_bench_macos import macapi
from cua_bench_macos.input import MacInput
from cua_bench_macos.keys import ANSI_KEYS, NAMED_KEYS, chord_events, text_events
from cua_bench_macos.macapi import KeyEvent, MouseEvent, QuartzEvent, ScrollEvent
from cua_core import Drag, MouseDown, MouseMove, MouseUp, OpenApp, Pinch, Point, Scroll

APPLE = json.loads((Path(__file__).parent / "fixtures" / "quartz_constants.json").read_text())
TYPE, BUTTON, FLAG, KVK = APPLE["CGEventType"], APPLE["CGMouseButton"], APPLE["CGEventFlags"], APPLE["kVK"]


class Poster:
    def __init__(self) -> None:
        self.posted: list[list[QuartzEvent]] = []

    def post(self, events: Sequence[QuartzEvent]) -> None:
        self.posted.append(list(events))

    def screen_size(self) -> tuple[float, float]:
        return (1000.0, 500.0)

    def cursor_pos(self) -> tuple[float, float]:
        return (10.0, 20.0)


def apply(actions: list[object]) -> tuple[list[str | None], list[list[QuartzEvent]]]:
    poster = Poster()
    desk = MacInput(poster, 1000, 500)  # type: ignore[arg-type]
    results = [asyncio.run(desk.apply(action)) for action in actions]  # type: ignore[arg-type]
    return results, poster.posted


def test_the_numbers_are_apples() -> None:
    assert (
        TYPE["kCGEventLeftMouseDown"], TYPE["kCGEventLeftMouseUp"], TYPE["kCGEventRightMouseDown"],
        TYPE["kCGEventRightMouseUp"]) == (macapi.KCG_LEFT_DOWN, macapi.KCG_LEFT_UP, macapi.KCG_RIGHT_DOWN, macapi.KCG_RIGHT_UP)  # fmt: skip
    assert (
        TYPE["kCGEventMouseMoved"], TYPE["kCGEventLeftMouseDragged"], TYPE["kCGEventOtherMouseDown"],
        TYPE["kCGEventOtherMouseDragged"]) == (macapi.KCG_MOUSE_MOVED, macapi.KCG_LEFT_DRAGGED, macapi.KCG_OTHER_DOWN, macapi.KCG_OTHER_DRAGGED)  # fmt: skip
    assert tuple(BUTTON.values()) == (macapi.KCG_BUTTON_LEFT, macapi.KCG_BUTTON_RIGHT, macapi.KCG_BUTTON_CENTER)
    assert tuple(FLAG.values()) == (macapi.KCG_EVENT_FLAG_SHIFT, macapi.KCG_EVENT_FLAG_CONTROL, macapi.KCG_EVENT_FLAG_ALTERNATE,
            macapi.KCG_EVENT_FLAG_COMMAND)  # fmt: skip
    assert APPLE["CGScrollEventUnit"]["kCGScrollEventUnitLine"] == macapi.KCG_SCROLL_LINE
    named = {"enter": "kVK_Return", "tab": "kVK_Tab", "space": "kVK_Space", "backspace": "kVK_Delete",
             "escape": "kVK_Escape", "super": "kVK_Command", "shift": "kVK_Shift", "capslock": "kVK_CapsLock",
             "alt": "kVK_Option", "ctrl": "kVK_Control", "f1": "kVK_F1", "f5": "kVK_F5", "f12": "kVK_F12",
             "home": "kVK_Home", "pageup": "kVK_PageUp", "delete": "kVK_ForwardDelete", "end": "kVK_End",
             "pagedown": "kVK_PageDown", "left": "kVK_LeftArrow", "right": "kVK_RightArrow", "down": "kVK_DownArrow",
             "up": "kVK_UpArrow", "kp_enter": "kVK_ANSI_KeypadEnter"}  # fmt: skip
    assert {name: NAMED_KEYS[name] for name in named} == {name: KVK[kvk] for name, kvk in named.items()}
    glyphs = {"a": "kVK_ANSI_A", "s": "kVK_ANSI_S", "c": "kVK_ANSI_C", "v": "kVK_ANSI_V", "=": "kVK_ANSI_Equal",
              "1": "kVK_ANSI_1", "/": "kVK_ANSI_Slash"}  # fmt: skip
    assert {g: ANSI_KEYS[g] for g in glyphs} == {g: KVK[k] for g, k in glyphs.items()}


def test_a_drag_presses_moves_as_dragged_events_and_releases() -> None:
    _, posted = apply([Drag(Point(0, 0), Point(1000, 1000))])
    events = posted[0]
    assert events[0] == MouseEvent(TYPE["kCGEventMouseMoved"], 0.5, 0.5)
    assert events[1] == MouseEvent(TYPE["kCGEventLeftMouseDown"], 0.5, 0.5, BUTTON["kCGMouseButtonLeft"])
    drags = events[2:-1]
    assert len(drags) == 8 and {e.type for e in drags if isinstance(e, MouseEvent)} == {
        TYPE["kCGEventLeftMouseDragged"]
    }
    assert drags[-1] == MouseEvent(TYPE["kCGEventLeftMouseDragged"], 999.5, 499.5)  # the last pixel's centre
    assert events[-1] == MouseEvent(TYPE["kCGEventLeftMouseUp"], 999.5, 499.5)


def test_a_move_with_a_button_held_is_that_buttons_drag() -> None:
    results, posted = apply([MouseDown("right", Point(100, 100)), MouseMove(Point(200, 200)), MouseUp("right"),
                             MouseUp("right")])  # fmt: skip
    assert posted[1] == [MouseEvent(TYPE["kCGEventRightMouseDragged"], 200.5, 100.5, BUTTON["kCGMouseButtonRight"])]
    assert posted[2] == [MouseEvent(TYPE["kCGEventRightMouseUp"], 200.5, 100.5, BUTTON["kCGMouseButtonRight"])]
    assert results[3] == "mouse_up: the right button is not down (press it with mouse_down first)"


def test_scrolling_is_line_units_up_positive() -> None:
    _, posted = apply([Scroll("down", 3, Point(500, 500)), Scroll("up", 1)])
    assert posted[0] == [MouseEvent(TYPE["kCGEventMouseMoved"], 500.5, 250.5), *[ScrollEvent(-1, 0)] * 3]
    assert posted[1] == [ScrollEvent(1, 0, APPLE["CGScrollEventUnit"]["kCGScrollEventUnitLine"])]


def test_what_a_mac_cannot_do_is_a_reason_not_an_error() -> None:
    results, posted = apply([Pinch(Point(500, 500), 0.5), OpenApp("Safari")])
    assert results == [
        "pinch: the macOS desktop has no touch screen here; zoom with key (e.g. cmd+plus) or scroll",
        "open_app: the macOS desktop has no app launcher by name ('Safari'); open it from the Dock or Spotlight "
        "(cmd+space)",
    ]
    assert posted == []


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (("ctrl", "alt", "delete"), [(0x3B, True, 0x40000), (0x3A, True, 0xC0000), (0x75, True, 0xC0000),
                                     (0x75, False, 0xC0000), (0x3A, False, 0x40000), (0x3B, False, 0)]),
        (("shift", "a"), [(0x38, True, 0x20000), (0x00, True, 0x20000), (0x00, False, 0x20000), (0x38, False, 0)]),
        (("?",), [(0x38, True, 0x20000), (0x2C, True, 0x20000), (0x2C, False, 0x20000), (0x38, False, 0)]),
    ],
)  # fmt: skip
def test_chords_press_in_order_release_in_reverse_with_the_held_flags(
    keys: tuple[str, ...], expected: list[tuple[int, bool, int]]
) -> None:
    downs, ups = chord_events(keys)
    assert [(e.keycode, e.down, e.flags) for e in [*downs, *ups]] == expected


def test_a_glyph_the_us_layout_lacks_is_sent_as_its_character_and_text_keeps_line_breaks_as_keys() -> None:
    downs, ups = chord_events(("super", "ü"))
    assert downs[1] == KeyEvent(0, True, 0x100000, "ü") and ups[0] == KeyEvent(0, False, 0x100000, "ü")
    assert [(e.keycode, e.text) for e in text_events("a\r\n😀")] == [(0, "a"), (0, "a"), (0x24, ""), (0x24, ""),
                                                                      (0, "😀"), (0, "😀")]  # fmt: skip
