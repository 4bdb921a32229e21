"""Real Qwen-VL outputs (shared/fixtures/model_outputs/qwen_vl.txt) parse to the actions they mean.

Blocks 1 and 2 are Qwen2.5-VL (QwenLM/Qwen2.5-VL cookbooks/mobile_agent.ipynb): pixels of the
smart-resized screenshot. Block 1's screen is 1080x2400, which factor-28 smart_resize makes
1092x2408 (the notebook's system prompt prints "The screen's resolution is 1092x2408"); block 2 is
the notebook's Chinese example, a 720x1280 screenshot, so 728x1288. Block 3 is Qwen3-VL (its own
cookbook; Thought/Action/tool_call layout): thousandths of the screen, whatever its size.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.model_outputs import model_outputs

from cua_adapters_qwen import Qwen3VLAdapter, Qwen25VLAdapter
from cua_core.actions import Point, Tap
from cua_data.adapters import AdapterParseError


def blocks(shared_fixtures: Path) -> list[str]:
    return model_outputs(shared_fixtures, "qwen_vl.txt")


def test_the_fixture_has_three_blocks(shared_fixtures: Path) -> None:
    assert len(blocks(shared_fixtures)) == 3


def test_block_1_qwen25_english_example(shared_fixtures: Path) -> None:
    adapter = Qwen25VLAdapter(platform="mobile")
    assert adapter.model_size(1080, 2400) == (1092, 2408)
    parsed = adapter.parse(blocks(shared_fixtures)[0], (1080, 2400))
    # Pixel (935, 406) of a 1092x2408 frame; its cell centre in thousandths.
    assert parsed.actions == [Tap(Point(935.5 * 1000 / 1092, 406.5 * 1000 / 2408))]
    assert parsed.thought is None


def test_block_2_qwen25_chinese_example(shared_fixtures: Path) -> None:
    adapter = Qwen25VLAdapter(platform="mobile")
    assert adapter.model_size(720, 1280) == (728, 1288)
    parsed = adapter.parse(blocks(shared_fixtures)[1], (720, 1280))
    assert parsed.actions == [Tap(Point(639.5 * 1000 / 728, 1095.5 * 1000 / 1288))]
    # Near the bottom right: the checkout bar of the shopping-cart task it answered.
    (tap,) = parsed.actions
    assert isinstance(tap, Tap) and tap.coordinate.x > 850 and tap.coordinate.y > 800


def test_block_3_qwen3_thought_action_layout(shared_fixtures: Path) -> None:
    parsed = Qwen3VLAdapter(platform="mobile").parse(blocks(shared_fixtures)[2], (1080, 2400))
    assert parsed.actions == [Tap(Point(447, 81))]
    assert parsed.thought is not None
    assert parsed.thought.startswith("Thought: To search for Musk in X")
    assert parsed.thought.endswith('Action: "I tapped on the search bar to begin searching for Musk."')


def test_the_frame_matters(shared_fixtures: Path) -> None:
    # The same text means another point to the other family: the adapter choice is not cosmetic.
    text = blocks(shared_fixtures)[0]
    qwen25 = Qwen25VLAdapter().parse(text, (1080, 2400)).actions
    qwen3 = Qwen3VLAdapter().parse(text, (1080, 2400)).actions
    assert qwen3 == [Tap(Point(935, 406))] and qwen25 != qwen3


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ('<tool_call>\n{"action": "test"}\n</tool_call>', "unknown tool None"),
        (
            '<tool_call>\n{"name": "computer_use", "arguments": {"action": "test"}}\n</tool_call>',
            "unknown action 'test'",
        ),
        (
            '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "fly"}}\n</tool_call>',
            "unknown mobile_use action 'fly'",
        ),
        (
            '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "open", "text": " "}}\n</tool_call>',
            "name the app",
        ),
        (
            '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1, "a"]}}\n</tool_call>',
            "coordinate must be [x, y]",
        ),
        (
            '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [5000, 5]}}\n</tool_call>',
            "outside",
        ),
        (
            '<tool_call>\n{"name": "computer_use", "arguments": {"action": "key", "keys": ["nokey"]}}\n</tool_call>',
            "unknown key",
        ),
        (
            '<tool_call>\n{"name": "computer_use", "arguments": {"action": "terminate", "status": "maybe"}}\n</tool_call>',
            "status must be",
        ),
        (
            '<tool_call>\n{"name": "computer_use", "arguments": {"action": "scroll", "pixels": 0}}\n</tool_call>',
            "scrolls nothing",
        ),
        ("<tool_call>\n{not json}\n</tool_call>", "not JSON"),
        ('<tool_call>\n{"name": "computer_use", "arguments": {"action": "wait"}}', "unterminated"),
        ("I would click the button.", "no <tool_call> block"),
    ],
)
def test_invalid_outputs_raise_with_the_reason(output: str, message: str) -> None:
    for adapter in (Qwen25VLAdapter(), Qwen3VLAdapter()):
        with pytest.raises(AdapterParseError, match=re.escape(message)) as info:
            adapter.parse(output, (1280, 800))
        assert info.value.raw == output
        assert adapter.name in str(info.value)
