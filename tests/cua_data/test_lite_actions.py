from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cua_core.actions import (
    Action,
    Click,
    CursorPosition,
    Done,
    Drag,
    Fail,
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
from cua_core.errors import ActionError
from cua_data.lite_actions import from_lite_action, from_lite_tool_call, to_lite_action, to_lite_tool_call

P, Q = Point(500, 300), Point(10, 990)

DESKTOP: list[tuple[Action, list[dict[str, Any]]]] = [
    (Click(P), [{"action": "click", "coordinate": [500, 300]}]),
    (Click(None, "right", 2), [{"action": "click", "button": "right", "clicks": 2}]),
    (MouseMove(P), [{"action": "mouse_move", "coordinate": [500, 300]}]),
    (MouseDown("middle"), [{"action": "mouse_down", "button": "middle"}]),
    (MouseUp(), [{"action": "mouse_up"}]),
    (Drag(P, Q), [{"action": "drag", "coordinate": [10, 990], "start_coordinate": [500, 300]}]),
    (Drag(None, Q, "right"), [{"action": "drag", "coordinate": [10, 990], "button": "right"}]),
    (Scroll("down", 3, P), [{"action": "scroll", "direction": "down", "amount": 3, "coordinate": [500, 300]}]),
    (TypeText("héllo\n"), [{"action": "type", "text": "héllo\n"}]),
    (TypeText("q", True), [{"action": "type", "text": "q", "press_enter": True}]),
    (KeyPress(("ctrl", "super", "escape", "+")), [{"action": "key", "keys": ["ctrl", "meta", "esc", "+"]}]),
    (KeyDown("shift"), [{"action": "key_down", "keys": ["shift"]}]),
    (KeyUp("shift"), [{"action": "key_up", "keys": ["shift"]}]),
    (HoldKey(("alt",), 2.0), [{"action": "hold_key", "keys": ["alt"], "duration": 2.0}]),
    (Wait(0.5), [{"action": "wait", "duration": 0.5}]),
    (Screenshot(), [{"action": "screenshot"}]),
    (CursorPosition(), [{"action": "cursor_position"}]),
]
MOBILE: list[tuple[Action, list[dict[str, Any]]]] = [
    (Tap(P), [{"action": "tap", "coordinate": [500, 300], "clicks": 1}]),
    (Tap(P, 2), [{"action": "tap", "coordinate": [500, 300], "clicks": 2}]),
    (LongPress(P, 2.0), [{"action": "long_press", "coordinate": [500, 300], "duration": 2.0}]),
    (Swipe(P, Q), [{"action": "swipe", "start_coordinate": [500, 300], "coordinate": [10, 990]}]),
    (Drag(P, Q), [{"action": "drag", "coordinate": [10, 990], "start_coordinate": [500, 300]}]),
    (Pinch(P, 0.75), [{"action": "pinch", "coordinate": [500, 300], "direction": "in", "amount": 25}]),
    (Pinch(P, 1.4), [{"action": "pinch", "coordinate": [500, 300], "direction": "out", "amount": 40}]),
    (SystemButton("back"), [{"action": "system_button", "button": "Back"}]),
    (TypeText("hi"), [{"action": "type", "text": "hi"}]),
]


@pytest.mark.parametrize(("action", "lite"), DESKTOP)
def test_desktop_both_ways(action: Action, lite: list[dict[str, Any]]) -> None:
    assert to_lite_action(action, "desktop") == lite
    assert [a for item in lite for a in from_lite_action(item, "computer")] == [action]


@pytest.mark.parametrize(("action", "lite"), MOBILE)
def test_mobile_both_ways(action: Action, lite: list[dict[str, Any]]) -> None:
    assert to_lite_action(action, "mobile") == lite
    assert [a for item in lite for a in from_lite_action(item, "mobile")] == [action]


def test_expansions_that_keep_meaning() -> None:
    assert to_lite_action(MouseDown("left", P)) == [
        {"action": "mouse_move", "coordinate": [500, 300]},
        {"action": "mouse_down"},
    ]
    assert to_lite_action(TypeText("hi", True), "mobile") == [
        {"action": "type", "text": "hi"},
        {"action": "system_button", "button": "Enter"},
    ]
    assert from_lite_action({"action": "key_down", "keys": ["ctrl", "shift"]}) == [KeyDown("ctrl"), KeyDown("shift")]
    assert to_lite_action(Click(Point(12.4, 12.6))) == [{"action": "click", "coordinate": [12, 13]}]


@pytest.mark.parametrize(
    ("action", "platform", "fragment"),
    [
        (Done("42"), "desktop", "a row ends with an assistant text"),
        (Fail("stuck"), "mobile", "failure goes to metadata.others"),
        (Tap(P), "desktop", "has no 'tap' action"),
        (Click(P), "mobile", "has no 'click' action"),
        (KeyPress(("numlock",)), "desktop", "'numlock' has no name in CUA-Lite"),
        (SystemButton("power"), "mobile", "not one of CUA-Lite's Home"),
        (Pinch(P, 1.0), "mobile", "scale 1 moves nothing"),
        (Drag(None, Q), "mobile", "needs a start point"),
    ],
)
def test_what_cua_lite_cannot_write_is_an_error(action: Action, platform: str, fragment: str) -> None:
    with pytest.raises(ActionError, match=fragment):
        to_lite_action(action, platform)


@pytest.mark.parametrize(
    ("function", "fragment"),
    [
        ({"name": "shell", "arguments": {}}, "not an action batch"),
        ({"name": "computer", "arguments": {"actions": []}}, "must be a non-empty list"),
        (
            {"name": "computer", "arguments": {"actions": [{"action": "click", "coordinate": [1, 2, 3]}]}},
            "computer.click.coordinate",
        ),
        ({"name": "computer", "arguments": {"actions": [{"action": "click", "coordinate": [1001, 2]}]}}, "1001"),
        ({"name": "computer", "arguments": {"actions": [{"action": "key", "keys": []}]}}, "computer.key.keys"),
        (
            {
                "name": "mobile",
                "arguments": {"actions": [{"action": "pinch", "coordinate": [1, 2], "direction": "sideways"}]},
            },
            "'in' or 'out'",
        ),
        (
            {"name": "mobile", "arguments": {"actions": [{"action": "swipe", "coordinate": [1, 2]}]}},
            "needs a start point",
        ),
        ({"name": "computer", "arguments": {"actions": ["click"]}}, "must be a dict"),
    ],
)
def test_bad_tool_calls(function: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ActionError, match=fragment):
        from_lite_tool_call(function)


def test_tool_call_batches() -> None:
    call = to_lite_tool_call([Click(P), TypeText("x")], "browser", "call_0003")
    assert call == {
        "id": "call_0003",
        "type": "function",
        "function": {
            "name": "computer",
            "arguments": {"actions": [{"action": "click", "coordinate": [500, 300]}, {"action": "type", "text": "x"}]},
        },
    }
    assert from_lite_tool_call(call["function"]) == [Click(P), TypeText("x")]


_coord = st.builds(Point, st.integers(0, 1000), st.integers(0, 1000))
_desktop_actions = st.one_of(
    st.builds(Click, st.one_of(st.none(), _coord), st.sampled_from(["left", "right", "middle"]), st.integers(1, 3)),
    st.builds(Drag, st.one_of(st.none(), _coord), _coord),
    st.builds(
        Scroll, st.sampled_from(["up", "down", "left", "right"]), st.integers(1, 100), st.one_of(st.none(), _coord)
    ),
    st.builds(TypeText, st.text(min_size=1), st.booleans()),
    st.builds(MouseMove, _coord),
)


@given(st.lists(_desktop_actions, min_size=1, max_size=5))
def test_integer_desktop_actions_round_trip(actions: list[Action]) -> None:
    call = to_lite_tool_call(actions, "desktop", "call_0000")
    assert from_lite_tool_call(call["function"]) == actions
