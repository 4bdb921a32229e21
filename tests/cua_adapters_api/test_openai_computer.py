"""OpenAI's computer_call: preview and GA items, scroll pixels, answers, what cannot be written."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cua_adapters_api import OpenAIComputerAdapter
from cua_core.actions import (
    Click,
    CursorPosition,
    Done,
    Drag,
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
    TypeText,
    Wait,
    from_pixels,
)
from cua_core.errors import ActionError
from cua_data.adapters import AdapterParseError

SCREEN = (1024, 768)


def px(x: int, y: int) -> Point:
    return from_pixels(x, y, *SCREEN)


def preview(action: dict[str, Any]) -> dict[str, Any]:
    return {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "action": action, "pending_safety_checks": []}


@pytest.mark.parametrize(
    ("action", "actions"),
    [
        ({"type": "click", "button": "left", "x": 10, "y": 20}, [Click(px(10, 20))]),
        ({"type": "click", "button": "right", "x": 10, "y": 20}, [Click(px(10, 20), "right")]),
        ({"type": "click", "button": "wheel", "x": 10, "y": 20}, [Click(px(10, 20), "middle")]),
        ({"type": "click", "x": 10, "y": 20}, [Click(px(10, 20))]),  # GA: the button is optional
        ({"type": "double_click", "x": 3, "y": 4}, [Click(px(3, 4), clicks=2)]),
        ({"type": "move", "x": 3, "y": 4}, [MouseMove(px(3, 4))]),
        # 100 px a wheel click: 300 px down is 3 clicks; 250 rounds to 2 (banker's), 40 is still 1.
        ({"type": "scroll", "x": 5, "y": 6, "scroll_x": 0, "scroll_y": 300}, [Scroll("down", 3, px(5, 6))]),
        ({"type": "scroll", "x": 5, "y": 6, "scroll_x": 0, "scroll_y": -250}, [Scroll("up", 2, px(5, 6))]),
        ({"type": "scroll", "x": 5, "y": 6, "scroll_x": 40, "scroll_y": 0}, [Scroll("right", 1, px(5, 6))]),
        (
            {"type": "scroll", "x": 5, "y": 6, "scroll_x": -100, "scroll_y": 200},
            [Scroll("down", 2, px(5, 6)), Scroll("left", 1, px(5, 6))],
        ),
        ({"type": "scroll", "x": 5, "y": 6, "scroll_x": 0, "scroll_y": 10**12}, [Scroll("down", 100, px(5, 6))]),
        ({"type": "type", "text": "penguin"}, [TypeText("penguin")]),
        ({"type": "type", "text": "penguin\n"}, [TypeText("penguin", press_enter=True)]),
        ({"type": "keypress", "keys": ["CTRL", "L"]}, [KeyPress(("ctrl", "l"))]),
        ({"type": "keypress", "keys": ["ENTER"]}, [KeyPress(("enter",))]),
        ({"type": "keypress", "keys": ["ESC"]}, [KeyPress(("escape",))]),
        ({"type": "keypress", "keys": ["ARROWDOWN"]}, [KeyPress(("down",))]),
        ({"type": "keypress", "keys": ["ctrl+shift+t"]}, [KeyPress(("ctrl", "shift", "t"))]),
        ({"type": "keypress", "keys": ["/"]}, [KeyPress(("/",))]),
        ({"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 30, "y": 40}]}, [Drag(px(1, 2), px(30, 40))]),
        (
            {"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 5, "y": 5}, {"x": 30, "y": 40}]},
            [MouseDown("left", px(1, 2)), MouseMove(px(5, 5)), MouseUp("left", px(30, 40))],
        ),
        ({"type": "wait"}, [Wait(2.0)]),
        ({"type": "screenshot"}, [Screenshot()]),
    ],
)
def test_every_action_parses(action: dict[str, Any], actions: list[object]) -> None:
    assert OpenAIComputerAdapter().parse(json.dumps(preview(action)), SCREEN).actions == actions


def test_ga_batched_actions_and_held_keys() -> None:
    item = {
        "type": "computer_call",
        "call_id": "call_2",
        "actions": [
            {"type": "click", "x": 405, "y": 157, "keys": ["SHIFT"]},
            {"type": "type", "text": "penguin"},
            {"type": "drag", "path": [{"x": 1, "y": 1}, {"x": 2, "y": 2}], "keys": ["ALT"]},
        ],
    }
    assert OpenAIComputerAdapter().parse({"output": [item]}, SCREEN).actions == [
        KeyDown("shift"),
        Click(px(405, 157)),
        KeyUp("shift"),
        TypeText("penguin"),
        KeyDown("alt"),
        Drag(px(1, 1), px(2, 2)),
        KeyUp("alt"),
    ]


def test_a_message_without_a_computer_call_is_the_answer() -> None:
    response = {
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Found it."}]},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "The price is $12.", "annotations": []}],
            },
        ]
    }
    parsed = OpenAIComputerAdapter().parse(response, SCREEN)
    assert parsed.actions == [Done("The price is $12.")]
    assert parsed.thought == "Found it."


def test_a_message_beside_a_computer_call_is_thought() -> None:
    message = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Opening it."}]}
    parsed = OpenAIComputerAdapter().parse([message, preview({"type": "screenshot"})], SCREEN)
    assert parsed.actions == [Screenshot()]
    assert parsed.thought == "Opening it."


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ([preview({"type": "click", "button": "back", "x": 1, "y": 1})], "back mouse button has no unified"),
        ([preview({"type": "click", "button": "thumb", "x": 1, "y": 1})], "button 'thumb' is not one of"),
        ([preview({"type": "click", "x": 1})], "y is required"),
        ([preview({"type": "click", "x": 1024, "y": 1})], "outside the screen"),
        ([preview({"type": "scroll", "x": 1, "y": 1, "scroll_x": 0, "scroll_y": 0})], "moves nothing"),
        ([preview({"type": "scroll", "x": 1, "y": 1, "scroll_y": 1.5})], "not a whole number of pixels"),
        ([preview({"type": "drag", "path": [{"x": 1, "y": 1}]})], "at least two"),
        ([preview({"type": "keypress", "keys": []})], "not a non-empty list"),
        ([preview({"type": "keypress", "keys": ["HYPERDRIVE"]})], "unknown key"),
        ([preview({"type": "teleport"})], "unknown action type 'teleport'"),
        ([{"type": "computer_call", "call_id": "c"}], "neither an action nor"),
        ([{"type": "function_call", "name": "f"}], "unexpected output item type 'function_call'"),
        ([{"type": "reasoning", "summary": []}], "no computer_call and no message"),
        ({"error": "rate limited"}, "expected a response with output"),
        ("not json", "not JSON"),
    ],
)
def test_bad_outputs_say_what_is_wrong(output: Any, message: str) -> None:
    with pytest.raises(AdapterParseError, match=message):
        OpenAIComputerAdapter().parse(output if isinstance(output, str) else json.dumps(output), SCREEN)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"display_size": "big"}, "display_size 'big' is not WIDTHxHEIGHT"),
        ({"display_size": (0, 768)}, "display_size must be"),
        ({"form": "beta"}, "form 'beta' is not one of ga, preview"),
        ({"scroll_pixels_per_click": 0}, "scroll_pixels_per_click must be"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OpenAIComputerAdapter(**options)


def test_model_size_is_the_screen_or_the_display_size() -> None:
    assert OpenAIComputerAdapter().model_size(1920, 1080) == (1920, 1080)
    assert OpenAIComputerAdapter(display_size="1024x768").model_size(1920, 1080) == (1024, 768)
    assert OpenAIComputerAdapter(display_size=(1280, 720)).model_size(1920, 1080) == (1280, 720)


def test_format_output_ga_is_one_call_with_actions() -> None:
    actions = [KeyDown("ctrl"), Click(px(10, 20)), KeyUp("ctrl"), Scroll("up", 2, px(1, 1)), TypeText("a")]
    output = json.loads(OpenAIComputerAdapter().format_output(actions, SCREEN, "Thinking."))["output"]
    assert output[0] == {
        "type": "reasoning",
        "id": output[0]["id"],
        "summary": [{"type": "summary_text", "text": "Thinking."}],
    }
    (call,) = output[1:]
    assert call["type"] == "computer_call" and call["call_id"].startswith("call_") and call["id"].startswith("cu_")
    assert call["actions"] == [
        {"type": "click", "button": "left", "x": 10, "y": 20, "keys": ["CTRL"]},
        {"type": "scroll", "x": 1, "y": 1, "scroll_x": 0, "scroll_y": -200},
        {"type": "type", "text": "a"},
    ]


def test_format_output_preview_is_one_call_per_action() -> None:
    text = OpenAIComputerAdapter(form="preview").format_output(
        [Click(px(1, 2), "middle"), KeyPress(("escape",))], SCREEN
    )
    output = json.loads(text)["output"]
    assert [item["action"] for item in output] == [
        {"type": "click", "button": "wheel", "x": 1, "y": 2},
        {"type": "keypress", "keys": ["ESC"]},
    ]
    assert len({item["call_id"] for item in output}) == 2


def test_format_output_done_is_a_message() -> None:
    (item,) = json.loads(OpenAIComputerAdapter().format_output([Done("42")], SCREEN))["output"]
    assert item["type"] == "message" and item["content"][0]["text"] == "42"


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ([Click()], r"openai-computer: cannot express click\(\).*needs x and y"),
        ([Click(Point(1, 1), clicks=3)], r"cannot express click.*only single clicks and left double"),
        ([Scroll("down")], r"cannot express scroll.*needs x and y"),
        ([Drag(None, Point(1, 1))], r"cannot express drag.*known start point"),
        ([MouseDown()], r"cannot express mouse_down.*no such action"),
        ([HoldKey(("a",), 1)], r"cannot express hold_key"),
        ([CursorPosition()], r"cannot express cursor_position"),
        ([KeyDown("ctrl"), KeyPress(("c",)), KeyUp("ctrl")], r"cannot express key_down"),
        ([Screenshot(), Done("x")], r"cannot express done.*only action"),
    ],
)
def test_unsupported_actions_name_the_action_and_family(actions: list[Any], message: str) -> None:
    with pytest.raises(ActionError, match=message):
        OpenAIComputerAdapter().format_output(actions, SCREEN)


def test_preview_cannot_hold_keys() -> None:
    with pytest.raises(ActionError, match="cannot hold keys down"):
        OpenAIComputerAdapter(form="preview").format_output([KeyDown("shift"), Click(px(1, 1)), KeyUp("shift")], SCREEN)
