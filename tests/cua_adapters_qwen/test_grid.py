"""Qwen3-VL's 0-1000 grid: a point a little past its edge is the edge; far past it is refused, saying why.

Qwen-VL models write coordinates as text, and a point at the screen's edge can come out a few
thousandths past it (QwenLM/Qwen3-VL#1035: a box edge drifting off the image; Qwen's answer is to
clip to the image). Far past the grid the number is not a thousandth at all: most likely a pixel.
"""

from __future__ import annotations

import json

import pytest

from cua_adapters_qwen import Qwen3VLAdapter
from cua_adapters_qwen.qwen3 import OVERSHOOT
from cua_core.actions import Click, Point
from cua_data.adapters import AdapterParseError

SCREEN = (1920, 1080)


def click_at(x: float, y: float) -> str:
    call = {"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}}
    return f"Action: Click the corner.\n<tool_call>\n{json.dumps(call)}\n</tool_call>"


@pytest.mark.parametrize(
    ("x", "y", "point"),
    [
        (1000, 1000, Point(1000, 1000)),
        (1004, 1000, Point(1000, 1000)),
        (1000 + OVERSHOOT, 3, Point(1000, 3)),
        (-2, 500, Point(0, 500)),
        (999.5, -OVERSHOOT, Point(999.5, 0)),
    ],
)
def test_a_small_overshoot_is_the_edge(x: float, y: float, point: Point) -> None:
    assert Qwen3VLAdapter().parse(click_at(x, y), SCREEN).actions == [Click(point)]


@pytest.mark.parametrize(("x", "y"), [(1000 + OVERSHOOT + 1, 5), (5, -OVERSHOOT - 1), (1919, 1079)])
def test_far_off_the_grid_is_refused_with_the_reason_and_the_fix(x: float, y: float) -> None:
    with pytest.raises(AdapterParseError) as caught:
        Qwen3VLAdapter().parse(click_at(x, y), SCREEN)
    message = str(caught.value)
    assert "outside Qwen3-VL's 0-1000 grid" in message
    assert "thousandths of the screen, not pixels" in message
    assert "qwen2.5-vl" in message  # the adapter for a model that writes pixels
