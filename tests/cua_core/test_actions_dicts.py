"""Plain-dict form: exact round trips for every kind, strict and explicit errors on the way in."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cua_core.actions import (
    ACTIONS,
    KEY_NAMES,
    MOUSE_BUTTONS,
    SCROLL_DIRECTIONS,
    SYSTEM_BUTTONS,
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
    OpenApp,
    Pinch,
    Point,
    Screenshot,
    Scroll,
    Swipe,
    SystemButton,
    Tap,
    TypeText,
    Wait,
    action_from_dict,
    action_to_dict,
    format_action,
    parse_action,
)
from cua_core.errors import ActionError

coordinate = st.integers(0, 1000) | st.floats(0, 1000)
points = st.builds(Point, coordinate, coordinate)
buttons = st.sampled_from(MOUSE_BUTTONS)
keys = st.lists(st.sampled_from(sorted(KEY_NAMES)), min_size=1, max_size=4, unique=True).map(tuple)
key = st.sampled_from(sorted(KEY_NAMES))
positive_duration = st.floats(0, 60, exclude_min=True) | st.integers(1, 60)

STRATEGIES: dict[str, st.SearchStrategy[Action]] = {
    "click": st.builds(Click, st.none() | points, buttons, st.integers(1, 3)),
    "mouse_move": st.builds(MouseMove, points),
    "mouse_down": st.builds(MouseDown, buttons, st.none() | points),
    "mouse_up": st.builds(MouseUp, buttons, st.none() | points),
    "drag": st.builds(Drag, st.none() | points, points, buttons),
    "scroll": st.builds(Scroll, st.sampled_from(SCROLL_DIRECTIONS), st.integers(1, 100), st.none() | points),
    "type": st.builds(TypeText, st.text(), st.booleans()),
    "key": st.builds(KeyPress, keys),
    "key_down": st.builds(KeyDown, key),
    "key_up": st.builds(KeyUp, key),
    "hold_key": st.builds(HoldKey, keys, positive_duration),
    "wait": st.builds(Wait, st.floats(0, 60) | st.integers(0, 60)),
    "screenshot": st.builds(Screenshot),
    "cursor_position": st.builds(CursorPosition),
    "done": st.builds(Done, st.none() | st.text()),
    "fail": st.builds(Fail, st.none() | st.text()),
    "tap": st.builds(Tap, points),
    "long_press": st.builds(LongPress, points, positive_duration),
    "swipe": st.builds(Swipe, points, points, positive_duration),
    "pinch": st.builds(Pinch, points, st.floats(0, 100, exclude_min=True)),
    "system_button": st.builds(SystemButton, st.sampled_from(SYSTEM_BUTTONS)),
    "open_app": st.builds(OpenApp, st.text(min_size=1).filter(str.strip)),
}
actions = st.one_of(*STRATEGIES.values())


def test_strategies_cover_every_kind() -> None:
    assert set(STRATEGIES) == set(ACTIONS)


@given(actions)
def test_dict_round_trip_is_exact(action: Action) -> None:
    plain = action_to_dict(action)
    assert action_from_dict(plain) == action
    assert action_to_dict(action_from_dict(plain)) == plain


@given(actions)
def test_dicts_survive_json_and_msgpack(action: Action) -> None:
    plain = action_to_dict(action)
    assert json.loads(json.dumps(plain)) == plain
    assert msgpack.unpackb(msgpack.packb(plain)) == plain
    assert action_from_dict(json.loads(json.dumps(plain))) == action


@given(actions)
def test_text_form_round_trip_is_exact(action: Action) -> None:
    assert parse_action(format_action(action)) == action


def test_dict_shape() -> None:
    assert action_to_dict(Click(Point(500, 300))) == {
        "kind": "click",
        "coordinate": [500, 300],
        "button": "left",
        "clicks": 1,
    }
    assert action_to_dict(KeyPress(("ctrl", "c"))) == {"kind": "key", "keys": ["ctrl", "c"]}
    assert action_to_dict(Screenshot()) == {"kind": "screenshot"}


def test_format_action_omits_defaults() -> None:
    assert format_action(Click(Point(500, 300))) == "click(coordinate=[500, 300])"
    assert format_action(Drag(None, Point(1, 2))) == "drag(start=None, end=[1, 2])"
    assert format_action(TypeText("hi", True)) == "type(text='hi', press_enter=True)"
    assert format_action(Screenshot()) == "screenshot()"


def test_from_dict_accepts_tuples_and_points() -> None:
    expected = Swipe(Point(1, 2), Point(3, 4))
    assert action_from_dict({"kind": "swipe", "start": (1, 2), "end": Point(3, 4)}) == expected
    assert action_from_dict({"kind": "key", "keys": ("Ctrl", "C")}) == KeyPress(("ctrl", "c"))


BAD_DICTS: list[tuple[Any, list[str]]] = [
    ({"kind": "clik"}, ["unknown action kind 'clik'", "known kinds: click, mouse_move"]),
    ({"kind": 3}, ["unknown action kind 3"]),
    ({"coordinate": [1, 2]}, ["has no 'kind'", "known kinds"]),
    ([1, 2], ["must be a dict", "[1, 2]"]),
    ("click", ["must be a dict", "'click'"]),
    ({"kind": "click", "buton": "left"}, ["click: unknown field 'buton'", "coordinate, button"]),
    ({"kind": "screenshot", "x": 1}, ["screenshot: unknown field 'x'", "allowed fields: none"]),
    ({"kind": "mouse_move"}, ["mouse_move: missing required field 'coordinate'"]),
    ({"kind": "drag", "end": [1, 2]}, ["drag: missing required field 'start'"]),
    ({"kind": "click", "coordinate": [1]}, ["click.coordinate", "[1]", "[x, y]"]),
    ({"kind": "click", "coordinate": "1,2"}, ["click.coordinate", "'1,2'"]),
    ({"kind": "click", "coordinate": [1, 2000]}, ["click.coordinate.y", "2000", "[0, 1000]"]),
    ({"kind": "tap", "coordinate": [None, 1]}, ["tap.coordinate.x", "None", "not a number"]),
    ({"kind": "key", "keys": "ctrl+c"}, ["key.keys", "'ctrl+c'", "not a list"]),
    ({"kind": "key", "keys": ["ctrl+c"]}, ["key.keys", "unknown key 'ctrl+c'"]),
    ({"kind": "scroll", "direction": "up", "amount": "3"}, ["scroll.amount", "'3'"]),
    ({"kind": "wait", "duration": None}, ["wait.duration", "None"]),
]


@pytest.mark.parametrize(("data", "fragments"), BAD_DICTS, ids=lambda v: str(v)[:40])
def test_bad_dicts_are_rejected_with_a_reason(data: Any, fragments: list[str]) -> None:
    with pytest.raises(ActionError) as raised:
        action_from_dict(data)
    for fragment in fragments:
        assert fragment in str(raised.value)
