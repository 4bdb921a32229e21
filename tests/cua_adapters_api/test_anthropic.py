"""Claude's computer tool: the frame rule, every action of computer_20250124, what cannot be written."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cua_adapters_api import AnthropicAdapter, scaled_size
from cua_core.actions import (
    Click,
    CursorPosition,
    Done,
    Drag,
    Fail,
    HoldKey,
    KeyDown,
    KeyPress,
    KeyUp,
    MouseDown,
    MouseMove,
    MouseUp,
    Point,
    Screenshot,
    Scroll,
    Tap,
    TypeText,
    Wait,
    from_pixels,
)
from cua_core.errors import ActionError
from cua_data.adapters import AdapterParseError

SCREEN = (1280, 800)  # WXGA: the model frame is the screen


def px(x: int, y: int) -> Point:
    return from_pixels(x, y, *SCREEN)


def call(**params: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_x", "name": "computer", "input": params}


@pytest.mark.parametrize(
    ("screen", "frame"),
    [
        ((1920, 1080), (1366, 768)),  # ~16:9 -> FWXGA
        ((2560, 1440), (1366, 768)),
        ((2560, 1600), (1280, 800)),  # 16:10 -> WXGA
        ((2048, 1536), (1024, 768)),  # 4:3 -> XGA
        ((1280, 800), (1280, 800)),  # the target itself: not wider, not scaled
        ((1024, 768), (1024, 768)),
        ((800, 600), (800, 600)),  # smaller than XGA: kept
        ((3000, 2000), (1313, 875)),  # 3:2 matches no target: the API limit, sqrt(1.15e6 / 6e6)
        ((2560, 1080), (1568, 661)),  # 21:9: the long edge limit
        ((1000, 1000), (1000, 1000)),  # 1 MP, under both limits
    ],
)
def test_model_size_demo_then_api_limit(screen: tuple[int, int], frame: tuple[int, int]) -> None:
    assert AnthropicAdapter().model_size(*screen) == frame


def test_model_size_options() -> None:
    assert AnthropicAdapter(scaling="api").model_size(1920, 1080) == (1429, 804)  # sqrt(1.15e6 / 2073600)
    assert AnthropicAdapter(scaling="none").model_size(3840, 2160) == (3840, 2160)
    assert AnthropicAdapter(scaling="api", max_long_edge=2576, max_pixels=4_000_000).model_size(1920, 1080) == (
        1920,
        1080,
    )
    for width, height in [(1, 1), (1920, 1080), (5000, 300), (333, 4444)]:
        w, h = scaled_size(width, height, "api")
        assert w <= 1568 and h <= 1568 and w * h <= 1_150_000


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"scaling": "fit"}, "scaling 'fit' is not one of demo, api, none"),
        ({"max_long_edge": 0}, "max_long_edge must be"),
        ({"max_pixels": "many"}, "max_pixels must be"),
        ({"tool_shape": "tools"}, "tool_shape 'tools' is not one of computer, toolset"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        AnthropicAdapter(**options)


@pytest.mark.parametrize(
    ("params", "actions"),
    [
        ({"action": "left_click", "coordinate": [10, 20]}, [Click(px(10, 20))]),
        ({"action": "left_click"}, [Click()]),  # 20250124: a click without a coordinate clicks in place
        ({"action": "right_click", "coordinate": [1, 2]}, [Click(px(1, 2), "right")]),
        ({"action": "middle_click", "coordinate": [1, 2]}, [Click(px(1, 2), "middle")]),
        ({"action": "double_click", "coordinate": [1, 2]}, [Click(px(1, 2), clicks=2)]),
        ({"action": "triple_click", "coordinate": [1, 2]}, [Click(px(1, 2), clicks=3)]),
        (
            {"action": "left_click", "coordinate": [5, 6], "text": "shift"},
            [KeyDown("shift"), Click(px(5, 6)), KeyUp("shift")],
        ),
        (
            {"action": "left_click", "coordinate": [5, 6], "text": "ctrl+shift"},
            [KeyDown("ctrl"), KeyDown("shift"), Click(px(5, 6)), KeyUp("shift"), KeyUp("ctrl")],
        ),
        # The demo's own 20250124 tool reads click modifiers from "key".
        ({"action": "left_click", "key": "ctrl"}, [KeyDown("ctrl"), Click(), KeyUp("ctrl")]),
        ({"action": "mouse_move", "coordinate": [7, 8]}, [MouseMove(px(7, 8))]),
        (
            {"action": "left_click_drag", "start_coordinate": [1, 1], "coordinate": [9, 9]},
            [Drag(px(1, 1), px(9, 9))],
        ),
        ({"action": "left_click_drag", "coordinate": [9, 9]}, [Drag(None, px(9, 9))]),
        ({"action": "left_mouse_down"}, [MouseDown()]),
        ({"action": "left_mouse_up"}, [MouseUp()]),
        ({"action": "left_mouse_down", "coordinate": [3, 4]}, [MouseDown("left", px(3, 4))]),
        (
            {"action": "scroll", "coordinate": [5, 5], "scroll_direction": "up", "scroll_amount": 2},
            [Scroll("up", 2, px(5, 5))],
        ),
        ({"action": "scroll", "scroll_direction": "left", "scroll_amount": 1}, [Scroll("left", 1)]),
        (
            {"action": "scroll", "scroll_direction": "down", "scroll_amount": 5, "text": "ctrl"},
            [KeyDown("ctrl"), Scroll("down", 5), KeyUp("ctrl")],
        ),
        ({"action": "type", "text": "hi there"}, [TypeText("hi there")]),
        ({"action": "type", "text": "query\n"}, [TypeText("query", press_enter=True)]),
        ({"action": "key", "text": "Return"}, [KeyPress(("enter",))]),
        ({"action": "key", "text": "ctrl+s"}, [KeyPress(("ctrl", "s"))]),
        ({"action": "key", "text": "alt+Tab"}, [KeyPress(("alt", "tab"))]),
        ({"action": "key", "text": "KP_0"}, [KeyPress(("0",))]),
        ({"action": "key", "text": "ctrl+a BackSpace"}, [KeyPress(("ctrl", "a")), KeyPress(("backspace",))]),
        ({"action": "key", "text": "Page_Down"}, [KeyPress(("pagedown",))]),
        ({"action": "key", "text": "ctrl+plus"}, [KeyPress(("ctrl", "+"))]),
        ({"action": "key", "text": "super_L"}, [KeyPress(("super",))]),
        ({"action": "key", "text": "ctrl+bracketleft"}, [KeyPress(("ctrl", "["))]),
        ({"action": "hold_key", "text": "shift", "duration": 1.5}, [HoldKey(("shift",), 1.5)]),
        ({"action": "wait", "duration": 2}, [Wait(2)]),
        ({"action": "screenshot"}, [Screenshot()]),
        ({"action": "cursor_position"}, [CursorPosition()]),
    ],
)
def test_every_action_parses(params: dict[str, Any], actions: list[object]) -> None:
    assert AnthropicAdapter().parse(json.dumps(call(**params)), SCREEN).actions == actions


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"action": "test"}, "unknown action 'test'"),
        ({"action": "zoom", "region": [0, 0, 10, 10]}, "zoom only views a region"),
        ({"action": "mouse_move"}, "coordinate is required for mouse_move"),
        ({"action": "left_click", "coordinate": [1280, 5]}, "outside the screen"),
        ({"action": "left_click", "coordinate": [5]}, "is not a pixel coordinate"),
        ({"action": "left_click", "coordinate": ["a", 5]}, "not a finite pixel position"),
        ({"action": "scroll", "scroll_direction": "down"}, "scroll_amount is required"),
        ({"action": "scroll", "scroll_direction": "sideways", "scroll_amount": 1}, "scroll.direction"),
        ({"action": "scroll", "scroll_direction": "up", "scroll_amount": 0}, "scroll.amount"),
        ({"action": "key", "text": "   "}, "names no key"),
        ({"action": "key", "text": "ctrl+frobnicate"}, "unknown key"),
        ({"action": "type"}, "text is required for type"),
        ({"action": "wait"}, "duration is required for wait"),
        ({"action": "hold_key", "text": "a", "duration": 500}, "hold_key.duration"),
    ],
)
def test_bad_calls_say_what_is_wrong(params: dict[str, Any], message: str) -> None:
    with pytest.raises(AdapterParseError, match=message):
        AnthropicAdapter().parse(json.dumps(call(**params)), SCREEN)


def test_what_is_not_the_computer_tool_is_refused() -> None:
    bash = {"type": "tool_use", "id": "t", "name": "bash", "input": {"command": "ls"}}
    with pytest.raises(AdapterParseError, match="not a call of the computer tool"):
        AnthropicAdapter().parse([bash], SCREEN)
    with pytest.raises(AdapterParseError, match="unexpected content block type 'image'"):
        AnthropicAdapter().parse([{"type": "image"}], SCREEN)
    with pytest.raises(AdapterParseError, match="not JSON"):
        AnthropicAdapter().parse("left_click(10, 20)", SCREEN)


def test_a_turn_without_tool_calls_is_the_answer() -> None:
    message = {"role": "assistant", "content": [{"type": "text", "text": "The total is 42."}]}
    parsed = AnthropicAdapter().parse(message, SCREEN)
    assert parsed.actions == [Done("The total is 42.")]
    assert AnthropicAdapter().parse({"role": "assistant", "content": []}, SCREEN).actions == [Done()]
    assert AnthropicAdapter().parse({"role": "assistant", "content": "Finished."}, SCREEN).actions == [
        Done("Finished.")
    ]


def test_thinking_and_text_are_the_thought() -> None:
    blocks = [
        {"type": "thinking", "thinking": "The button is top left.", "signature": "sig"},
        {"type": "text", "text": "Clicking it."},
        call(action="left_click", coordinate=[0, 0]),
    ]
    parsed = AnthropicAdapter().parse(blocks, SCREEN)
    assert parsed.thought == "The button is top left.\n\nClicking it."
    assert parsed.actions == [Click(px(0, 0))]


def test_format_output_writes_computer_tool_calls() -> None:
    text = AnthropicAdapter().format_output(
        [Click(px(10, 20)), TypeText("hello", press_enter=True), KeyPress(("ctrl", "s"))], SCREEN, "Saving."
    )
    message = json.loads(text)
    assert message["role"] == "assistant"
    assert message["content"][0] == {"type": "text", "text": "Saving."}
    inputs = [block["input"] for block in message["content"][1:]]
    assert inputs == [
        {"action": "left_click", "coordinate": [10, 20]},
        {"action": "type", "text": "hello\n"},
        {"action": "key", "text": "ctrl+s"},
    ]
    ids = [block["id"] for block in message["content"][1:]]
    assert all(i.startswith("toolu_") for i in ids) and len(set(ids)) == 3
    again = AnthropicAdapter().format_output(
        [Click(px(10, 20)), TypeText("hello", press_enter=True), KeyPress(("ctrl", "s"))], SCREEN, "Saving."
    )
    assert again == text  # deterministic ids


def test_format_output_key_names_are_xdotool_keysyms() -> None:
    keys = [KeyPress(("enter",)), KeyPress(("ctrl", "+")), KeyPress(("pagedown",)), KeyPress(("escape",))]
    blocks = json.loads(AnthropicAdapter().format_output(keys, SCREEN))["content"]
    assert [b["input"]["text"] for b in blocks] == ["Return", "ctrl+plus", "Page_Down", "Escape"]


def test_format_output_held_modifiers_and_moves() -> None:
    actions = [KeyDown("shift"), Click(px(5, 6)), KeyUp("shift"), MouseDown("left", px(1, 1)), MouseUp()]
    blocks = json.loads(AnthropicAdapter().format_output(actions, SCREEN))["content"]
    assert [b["input"] for b in blocks] == [
        {"action": "left_click", "coordinate": [5, 6], "text": "shift"},
        {"action": "mouse_move", "coordinate": [1, 1]},  # the demo refuses a coordinate on left_mouse_down
        {"action": "left_mouse_down"},
        {"action": "left_mouse_up"},
    ]


def test_format_output_toolset_shape() -> None:
    text = AnthropicAdapter(tool_shape="toolset").format_output([Click(px(1, 2)), Screenshot()], SCREEN)
    blocks = json.loads(text)["content"]
    assert [(b["name"], b["input"], b["toolset_name"]) for b in blocks] == [
        ("left_click", {"coordinate": [1, 2]}, "computer"),
        ("screenshot", {}, "computer"),
    ]
    assert AnthropicAdapter().parse(text, SCREEN).actions == [Click(px(1, 2)), Screenshot()]


def test_format_output_done_is_a_text_only_turn() -> None:
    assert json.loads(AnthropicAdapter().format_output([Done("42")], SCREEN)) == {
        "role": "assistant",
        "content": [{"type": "text", "text": "42"}],
    }


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ([Fail("impossible")], r"anthropic: cannot express fail\(.*no such action"),
        ([Tap(Point(1, 1))], r"anthropic: cannot express tap"),
        ([Click(Point(1, 1), "right", 2)], r"cannot express click.*only left clicks repeat"),
        ([Drag(Point(1, 1), Point(2, 2), "right")], r"cannot express drag.*left button only"),
        ([MouseDown("middle")], r"cannot express mouse_down.*only the left button"),
        ([KeyDown("shift")], r"cannot express key_down.*keys can only be held around one click, scroll, drag"),
        ([KeyDown("shift"), TypeText("A"), KeyUp("shift")], r"cannot express key_down"),
        ([KeyUp("shift")], r"cannot express key_up"),
        ([Click(), Done()], r"cannot express done.*only action"),
    ],
)
def test_unsupported_actions_name_the_action_and_family(actions: list[Any], message: str) -> None:
    with pytest.raises(ActionError, match=message):
        AnthropicAdapter().format_output(actions, SCREEN)
