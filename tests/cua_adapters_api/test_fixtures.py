"""The shared API fixtures parse to the actions they mean (shared/fixtures/model_outputs).

claude_tool_use.txt: blocks 1-4 are built to the computer_20250124 schema, block 5 is the
demo's own test input (``{"action": "test"}``, not an action), block 6 the toolset shape.
openai_computer_call.txt: block 1 is the response documented in trycua/cua's blog.

Expected points are worked out by hand from the frame rule: a pixel ``p`` of a frame ``n`` wide
is the centre of its cell, ``(p + 0.5) * 1000 / n``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.model_outputs import model_outputs

from cua_adapters_api import AnthropicAdapter, OpenAIComputerAdapter
from cua_core.actions import Click, Point, Screenshot, Scroll, TypeText
from cua_data.adapters import AdapterParseError


def blocks(shared_fixtures: Path, name: str) -> list[str]:
    return model_outputs(shared_fixtures, name)


def cell(pixel: float, size: int) -> float:
    return (pixel + 0.5) * 1000 / size


def test_claude_fixture_has_six_blocks(shared_fixtures: Path) -> None:
    assert len(blocks(shared_fixtures, "claude_tool_use.txt")) == 6


def test_claude_blocks_on_a_wxga_screen(shared_fixtures: Path) -> None:
    # 1280x800 is WXGA itself: the demo does not scale it, so Claude's pixels are the screen's.
    adapter = AnthropicAdapter()
    assert adapter.model_size(1280, 800) == (1280, 800)
    found = blocks(shared_fixtures, "claude_tool_use.txt")
    one, two, three, four, six = (adapter.parse(found[i], (1280, 800)) for i in (0, 1, 2, 3, 5))
    assert one.actions == [Screenshot()]
    assert one.thought == "I'll take a screenshot to see the current state of the screen."
    assert two.actions == [Click(Point(cell(405, 1280), cell(157, 800)))]
    assert two.thought is None
    assert three.actions == [TypeText("hello world")]
    assert four.actions == [Scroll("down", 3, Point(cell(640, 1280), cell(400, 800)))]
    # The toolset shape: the tool's name is the action; two calls in one turn.
    assert six.actions == [Click(Point(cell(1, 1280), cell(2, 800))), Screenshot()]


def test_claude_block_5_is_not_an_action(shared_fixtures: Path) -> None:
    with pytest.raises(AdapterParseError, match="unknown action 'test'") as caught:
        AnthropicAdapter().parse(blocks(shared_fixtures, "claude_tool_use.txt")[4], (1280, 800))
    assert "left_click" in str(caught.value)  # it says what would have been accepted
    assert caught.value.raw == blocks(shared_fixtures, "claude_tool_use.txt")[4]


def test_claude_coordinates_are_in_the_scaled_frame(shared_fixtures: Path) -> None:
    # On a 1920x1080 screen Claude was sent 1366x768 (FWXGA), so (405, 157) is in that frame.
    adapter = AnthropicAdapter()
    assert adapter.model_size(1920, 1080) == (1366, 768)
    parsed = adapter.parse(blocks(shared_fixtures, "claude_tool_use.txt")[1], (1920, 1080))
    assert parsed.actions == [Click(Point(cell(405, 1366), cell(157, 768)))]
    unscaled = AnthropicAdapter(scaling="none").parse(blocks(shared_fixtures, "claude_tool_use.txt")[1], (1920, 1080))
    assert unscaled.actions != parsed.actions


def test_openai_fixture_block_1(shared_fixtures: Path) -> None:
    (block,) = blocks(shared_fixtures, "openai_computer_call.txt")
    parsed = OpenAIComputerAdapter().parse(block, (1024, 768))
    assert parsed.actions == [Click(Point(cell(156, 1024), cell(50, 768)), "left")]
    assert parsed.thought == "Clicking on the browser address bar."


def test_openai_fixture_with_a_display_size(shared_fixtures: Path) -> None:
    (block,) = blocks(shared_fixtures, "openai_computer_call.txt")
    # A 2048x1536 screen shown to the model as 1024x768: the same pixel is the same place.
    parsed = OpenAIComputerAdapter(display_size="1024x768").parse(block, (2048, 1536))
    assert parsed.actions == [Click(Point(cell(156, 1024), cell(50, 768)), "left")]
    assert OpenAIComputerAdapter().parse(block, (2048, 1536)).actions != parsed.actions
