"""OSWorld computer_13 dicts <-> unified actions, both directions, every action_type."""

from __future__ import annotations

from typing import Any

import pytest

from cua_core.actions import (
    OSWORLD_ACTION_TYPES,
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
    from_osworld,
    from_pixels,
    to_osworld,
)
from cua_core.errors import ActionError

W, H = 1920, 1080
CENTRE = from_pixels(960, 540, W, H)
CORNER = from_pixels(1919, 0, W, H)


def os_action(action_type: str, **parameters: Any) -> dict[str, Any]:
    return {"action_type": action_type, "parameters": parameters}


FROM_OSWORLD: list[tuple[Any, Action]] = [
    (os_action("MOVE_TO", x=960, y=540), MouseMove(CENTRE)),
    (os_action("CLICK"), Click()),
    (os_action("CLICK", x=960, y=540), Click(CENTRE)),
    (os_action("CLICK", button="right", x=1919, y=0, num_clicks=2), Click(CORNER, "right", 2)),
    (os_action("CLICK", button="middle"), Click(None, "middle")),
    (os_action("CLICK", x=960.7, y=540.2), Click(CENTRE)),
    (os_action("MOUSE_DOWN"), MouseDown()),
    (os_action("MOUSE_DOWN", button="right"), MouseDown("right")),
    (os_action("MOUSE_UP", button="left"), MouseUp()),
    (os_action("RIGHT_CLICK", x=960, y=540), Click(CENTRE, "right")),
    (os_action("RIGHT_CLICK"), Click(None, "right")),
    (os_action("DOUBLE_CLICK", x=960, y=540), Click(CENTRE, "left", 2)),
    (os_action("DOUBLE_CLICK"), Click(None, "left", 2)),
    (os_action("DRAG_TO", x=960, y=540), Drag(None, CENTRE)),
    (os_action("SCROLL", dx=0, dy=3), Scroll("up", 3)),
    (os_action("SCROLL", dx=0, dy=-5), Scroll("down", 5)),
    (os_action("SCROLL", dx=2, dy=0), Scroll("right", 2)),
    (os_action("SCROLL", dx=-1, dy=0), Scroll("left", 1)),
    (os_action("SCROLL", dy=-2), Scroll("down", 2)),
    (os_action("TYPING", text="hello\n"), TypeText("hello\n")),
    (os_action("PRESS", key="enter"), KeyPress(("enter",))),
    (os_action("PRESS", key="esc"), KeyPress(("escape",))),
    (os_action("PRESS", key="win"), KeyPress(("super",))),
    (os_action("KEY_DOWN", key="shift"), KeyDown("shift")),
    (os_action("KEY_UP", key="ctrlleft"), KeyUp("ctrl")),
    (os_action("HOTKEY", keys=["ctrl", "alt", "t"]), KeyPress(("ctrl", "alt", "t"))),
    (os_action("WAIT"), Wait()),
    (os_action("FAIL"), Fail()),
    (os_action("DONE"), Done()),
    ({"action_type": "DONE"}, Done()),
    ("WAIT", Wait()),
    ("FAIL", Fail()),
    ("DONE", Done()),
]


@pytest.mark.parametrize(("data", "expected"), FROM_OSWORLD, ids=str)
def test_from_osworld(data: Any, expected: Action) -> None:
    assert from_osworld(data, W, H) == expected


def test_every_action_type_is_covered() -> None:
    covered = {data if isinstance(data, str) else data["action_type"] for data, _ in FROM_OSWORLD}
    assert covered == set(OSWORLD_ACTION_TYPES)
    assert len(OSWORLD_ACTION_TYPES) == 16


TO_OSWORLD: list[tuple[Action, dict[str, Any]]] = [
    (Click(), os_action("CLICK", button="left", num_clicks=1)),
    (Click(CENTRE, "right", 2), os_action("CLICK", button="right", x=960, y=540, num_clicks=2)),
    (Click(Point(1000, 1000)), os_action("CLICK", button="left", x=1919, y=1079, num_clicks=1)),
    (MouseMove(Point(500, 500)), os_action("MOVE_TO", x=960, y=540)),
    (MouseDown("middle"), os_action("MOUSE_DOWN", button="middle")),
    (MouseUp(), os_action("MOUSE_UP", button="left")),
    (Drag(None, CORNER), os_action("DRAG_TO", x=1919, y=0)),
    (Scroll("up", 3), os_action("SCROLL", dx=0, dy=3)),
    (Scroll("down", 4), os_action("SCROLL", dx=0, dy=-4)),
    (Scroll("right", 1), os_action("SCROLL", dx=1, dy=0)),
    (Scroll("left", 2), os_action("SCROLL", dx=-2, dy=0)),
    (TypeText("hi"), os_action("TYPING", text="hi")),
    (TypeText("hi", press_enter=True), os_action("TYPING", text="hi\n")),
    (KeyPress(("enter",)), os_action("PRESS", key="enter")),
    (KeyPress(("super",)), os_action("PRESS", key="win")),
    (KeyPress(("ctrl", "c")), os_action("HOTKEY", keys=["ctrl", "c"])),
    (KeyPress(("menu", "kp_enter")), os_action("HOTKEY", keys=["apps", "enter"])),
    (KeyDown("shift"), os_action("KEY_DOWN", key="shift")),
    (KeyUp("super"), os_action("KEY_UP", key="win")),
    (Wait(5), os_action("WAIT")),
    (Done("the answer"), os_action("DONE")),
    (Fail("infeasible"), os_action("FAIL")),
]


@pytest.mark.parametrize(("action", "expected"), TO_OSWORLD, ids=str)
def test_to_osworld(action: Action, expected: dict[str, Any]) -> None:
    assert to_osworld(action, W, H) == expected


# Dicts in the form to_osworld writes come back unchanged: pixels survive the trip exactly.
LOSSY = ("WAIT", "DONE", "FAIL")  # they drop a duration, answer or reason
CANONICAL = [expected for _, expected in TO_OSWORLD if expected["action_type"] not in LOSSY]


@pytest.mark.parametrize("data", CANONICAL, ids=str)
@pytest.mark.parametrize("size", [(1, 1), (1280, 800), (1920, 1080), (3840, 2160)])
def test_osworld_round_trip_is_exact(data: dict[str, Any], size: tuple[int, int]) -> None:
    width, height = size
    parameters = dict(data["parameters"])
    for axis, limit in (("x", width), ("y", height)):
        if axis in parameters:
            parameters[axis] = min(parameters[axis], limit - 1)
    data = {"action_type": data["action_type"], "parameters": parameters}
    assert to_osworld(from_osworld(data, width, height), width, height) == data


REFUSED: list[tuple[Action, str]] = [
    (MouseDown("left", CENTRE), "mouse_move there first"),
    (MouseUp("left", CENTRE), "mouse_move there first"),
    (Drag(CENTRE, CORNER), "mouse_move to start first"),
    (Drag(None, CORNER, "right"), "left button only"),
    (Scroll("up", 1, CENTRE), "mouse_move there first"),
    (HoldKey(("a",), 1), "hold_key cannot be sent"),
    (Screenshot(), "screenshot cannot be sent"),
    (CursorPosition(), "cursor_position cannot be sent"),
    (Tap(CENTRE), "tap cannot be sent"),
    (LongPress(CENTRE), "long_press cannot be sent"),
    (Swipe(CENTRE, CORNER), "swipe cannot be sent"),
    (Pinch(CENTRE, 2), "pinch cannot be sent"),
    (SystemButton("home"), "system_button cannot be sent"),
    (OpenApp("Settings"), "open_app cannot be sent"),
]


@pytest.mark.parametrize(("action", "fragment"), REFUSED, ids=str)
def test_actions_without_a_computer_13_form_are_refused(action: Action, fragment: str) -> None:
    with pytest.raises(ActionError) as raised:
        to_osworld(action, W, H)
    assert fragment in str(raised.value)


BAD_OSWORLD: list[tuple[Any, str]] = [
    ("JUMP", "unknown action_type 'JUMP'; known: MOVE_TO, CLICK"),
    (os_action("LEFT_CLICK"), "unknown action_type 'LEFT_CLICK'"),
    ({"parameters": {}}, "unknown action_type None"),
    (42, "neither a dict"),
    ({"action_type": "CLICK", "note": "x"}, "unknown key 'note'"),
    ({"action_type": "CLICK", "parameters": [1]}, "parameters [1] is not a dict"),
    (os_action("CLICK", x=1), "OSWorld CLICK: x and y must be given together"),
    (os_action("CLICK", x=1920, y=0), "OSWorld CLICK: pixel x: 1920 is outside the screen"),
    (os_action("CLICK", button="lefty"), "click.button: 'lefty'"),
    (os_action("CLICK", num_clicks=4), "click.clicks: 4"),
    (os_action("CLICK", z=1), "unknown parameter 'z'; allowed: button, num_clicks, x, y"),
    (os_action("MOVE_TO", x=1), "OSWorld MOVE_TO: missing parameter 'y'"),
    (os_action("DRAG_TO"), "missing parameter 'x'"),
    (os_action("SCROLL", dx=1, dy=1), "dx=1 and dy=1 are both non-zero"),
    (os_action("SCROLL", dx=0, dy=0), "both 0"),
    (os_action("SCROLL"), "both 0"),
    (os_action("SCROLL", dy=1.5), "OSWorld SCROLL: dy: 1.5 is not an integer"),
    (os_action("TYPING"), "missing parameter 'text'"),
    (os_action("TYPING", text=3), "type.text: 3 is not a string"),
    (os_action("PRESS", key="ctrl_l"), "OSWorld PRESS: key: unknown key 'ctrl_l'"),
    (os_action("PRESS", key=["esc"]), "is not a key name"),
    (os_action("HOTKEY", keys="ctrl+c"), "OSWorld HOTKEY: keys: 'ctrl+c' is not a list"),
    (os_action("HOTKEY", keys=[]), "key list is empty"),
    (os_action("WAIT", seconds=3), "unknown parameter 'seconds'; allowed: none"),
]


@pytest.mark.parametrize(("data", "fragment"), BAD_OSWORLD, ids=str)
def test_bad_osworld_actions_are_rejected(data: Any, fragment: str) -> None:
    with pytest.raises(ActionError) as raised:
        from_osworld(data, W, H)
    assert fragment in str(raised.value)


def test_bad_screen_size_is_rejected() -> None:
    with pytest.raises(ActionError, match="screen width"):
        from_osworld(os_action("MOVE_TO", x=1, y=1), 0, 10)
