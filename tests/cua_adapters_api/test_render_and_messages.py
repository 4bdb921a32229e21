"""Prompts for a short history: the shared layout, and each API's own request built from it."""

from __future__ import annotations

import base64
import io
import itertools
import json
from typing import Any

import numpy as np
import pytest
from PIL import Image

from cua_adapters_api import (
    AnthropicAdapter,
    OpenAIComputerAdapter,
    anthropic_request,
    anthropic_tool,
    openai_request,
    openai_tool,
)
from cua_adapters_api.messages import NO_SCREENSHOT
from cua_core.actions import Click, Point, Screenshot, TypeText, to_pixels
from cua_data.adapters import Adapter, HistoryPolicy, Prompt, Turn
from cua_data.registry import adapters

SCREEN = (1920, 1080)


def screen(shade: int) -> np.ndarray:
    return np.full((SCREEN[1], SCREEN[0], 3), shade, dtype=np.uint8)


def history(adapter: Adapter) -> list[Turn]:
    click = Click(Point(500, 500))
    return [
        Turn(screen(10), (click,)),
        Turn(screen(20), (click,)),  # the same actions again: formatted ids repeat
        Turn(screen(30), (TypeText("hi"),), output=adapter.format_output([TypeText("hi")], SCREEN, "Typing.")),
    ]


def test_both_adapters_are_registered() -> None:
    registry = adapters()
    assert registry["anthropic"] is AnthropicAdapter
    assert registry["openai-computer"] is OpenAIComputerAdapter


@pytest.mark.parametrize(
    ("adapter", "frame"),
    [(AnthropicAdapter(), (1366, 768)), (OpenAIComputerAdapter(display_size="1280x720"), (1280, 720))],
    ids=["anthropic", "openai-computer"],
)
def test_render_layout(adapter: Adapter, frame: tuple[int, int]) -> None:
    prompt = adapter.render("Open the file", history(adapter), screen(40))
    roles = [m["role"] for m in prompt.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert f"{frame[0]}x{frame[1]}" in prompt.messages[0]["content"][0]["text"]
    assert len(prompt.images) == 4
    assert {image.size for image in prompt.images} == {frame}
    assert prompt.messages[1]["content"][0] == {"type": "text", "text": "Open the file"}
    # Assistant turns are the family's own output text, which parses back.
    for message in prompt.messages[2::2]:
        assert adapter.parse(message["content"][0]["text"], SCREEN).actions


def decode(data: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(data)))


def check_claude_pairs(messages: list[dict[str, Any]]) -> None:
    """Roles alternate, and every tool_use is answered by a tool_result in the next message."""
    assert messages[0]["role"] == "user"
    for before, after in itertools.pairwise(messages):
        assert before["role"] != after["role"]
        calls = [b["id"] for b in before["content"] if b.get("type") == "tool_use"]
        results = [b["tool_use_id"] for b in after["content"] if b.get("type") == "tool_result"]
        assert calls == results
        kinds = [b["type"] for b in after["content"]]
        assert kinds == sorted(kinds, key=lambda k: k != "tool_result"), "tool results come first"


def test_anthropic_request() -> None:
    adapter = AnthropicAdapter()
    request = anthropic_request(adapter.render("Open the file", history(adapter), screen(40)))
    assert request["system"].startswith("You are operating a computer")
    messages = request["messages"]
    check_claude_pairs(messages)
    assert [m["role"] for m in messages] == ["user", "assistant"] * 3 + ["user"]
    first = messages[0]["content"]
    assert [b["type"] for b in first] == ["text", "image"]
    assert first[1]["source"]["media_type"] == "image/png"
    assert decode(first[1]["source"]["data"]).size == (1366, 768)
    ids = [b["id"] for m in messages for b in m["content"] if b["type"] == "tool_use"]
    assert len(ids) == 3 and len(set(ids)) == 3  # the repeated click got a fresh id
    last = messages[-1]["content"]
    assert last[0]["type"] == "tool_result"
    (image,) = last[0]["content"]
    assert decode(image["source"]["data"]).getpixel((0, 0)) == (40, 40, 40)  # the current screen
    assert messages[5]["content"][0] == {"type": "text", "text": "Typing."}  # the raw turn, replayed


def test_anthropic_request_without_some_screenshots() -> None:
    adapter = AnthropicAdapter(history=HistoryPolicy(max_images=2))
    messages = anthropic_request(adapter.render("Go", history(adapter), screen(40)))["messages"]
    check_claude_pairs(messages)
    results = [b for m in messages for b in m["content"] if b["type"] == "tool_result"]
    assert [r["content"][0]["type"] for r in results] == ["text", "image", "image"]
    assert results[0]["content"][0]["text"] == NO_SCREENSHOT


def test_anthropic_request_keeps_plain_text_turns() -> None:
    prompt = Prompt(
        [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "I cannot see the screen."}]},
        ]
    )
    assert anthropic_request(prompt) == {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "I cannot see the screen."}]},
        ]
    }


def test_anthropic_tool() -> None:
    assert anthropic_tool((1366, 768)) == {
        "type": "computer_20250124",
        "name": "computer",
        "display_width_px": 1366,
        "display_height_px": 768,
    }
    assert anthropic_tool((1, 1), version="computer_20251124", display_number=1)["display_number"] == 1
    with pytest.raises(ValueError, match="size"):
        anthropic_tool((0, 768))


def check_openai_pairs(items: list[dict[str, Any]]) -> None:
    """Every computer_call is answered by one computer_call_output, before the next call."""
    waiting: list[str] = []
    for item in items:
        if item.get("type") == "computer_call":
            assert not waiting
            waiting.append(item["call_id"])
        elif item.get("type") == "computer_call_output":
            assert waiting.pop(0) == item["call_id"]
            assert item["output"]["type"] == "computer_screenshot"
            assert item["output"]["image_url"].startswith("data:image/png;base64,")
    assert not waiting


def test_openai_request() -> None:
    adapter = OpenAIComputerAdapter()
    request = openai_request(adapter.render("Open the file", history(adapter), screen(40)))
    assert request["instructions"].startswith("You are operating a computer")
    items = request["input"]
    check_openai_pairs(items)
    assert items[0]["role"] == "user"
    assert [part["type"] for part in items[0]["content"]] == ["input_text", "input_image"]
    kinds = [item.get("type") for item in items[1:]]
    assert kinds == [
        "computer_call", "computer_call_output",
        "computer_call", "computer_call_output",
        "reasoning", "computer_call", "computer_call_output",
    ]  # fmt: skip
    url = items[-1]["output"]["image_url"]
    assert decode(url.partition(",")[2]).getpixel((0, 0)) == (40, 40, 40)
    without = openai_request(adapter.render("Go", history(adapter), screen(40)), keep_reasoning=False)["input"]
    assert "reasoning" not in [item.get("type") for item in without]


def test_openai_request_turns_without_a_screenshot_become_text() -> None:
    adapter = OpenAIComputerAdapter(history=HistoryPolicy(max_images=2))
    items = openai_request(adapter.render("Go", history(adapter), screen(40)))["input"]
    check_openai_pairs(items)
    assert items[1]["role"] == "assistant"
    (click,) = adapter.parse(items[1]["content"], SCREEN).actions
    assert isinstance(click, Click) and click.coordinate is not None
    assert to_pixels(click.coordinate, *SCREEN) == to_pixels(Point(500, 500), *SCREEN)


def test_openai_request_acknowledges_safety_checks() -> None:
    check = {"id": "cu_sc_1", "code": "malicious_instructions", "message": "Careful."}
    output = {"output": [{"type": "computer_call", "call_id": "call_9", "action": {"type": "screenshot"}}]}
    output["output"][0]["pending_safety_checks"] = [check]
    turn = Turn(screen(10), (Screenshot(),), output=json.dumps(output))
    adapter = OpenAIComputerAdapter()
    items = openai_request(adapter.render("Go", [turn], screen(40)))["input"]
    (answer,) = [item for item in items if item.get("type") == "computer_call_output"]
    assert answer["call_id"] == "call_9" and answer["acknowledged_safety_checks"] == [check]


def test_openai_tool() -> None:
    assert openai_tool() == {"type": "computer"}
    assert openai_tool((1024, 768), preview=True, environment="browser") == {
        "type": "computer_use_preview",
        "display_width": 1024,
        "display_height": 768,
        "environment": "browser",
    }
    with pytest.raises(ValueError, match="required for the preview tool"):
        openai_tool(preview=True)
