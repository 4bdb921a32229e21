"""Qwen2.5-VL: tool calls in absolute pixels of the smart-resized image the model was shown.

The model sees the screenshot resized by ``smart_resize`` (factor 28 = patch 14 x merge 2) and is
told that size as "the screen's resolution" (QwenLM/Qwen2.5-VL ``cookbooks/computer_use.ipynb`` and
``mobile_agent.ipynb`` build ``ComputerUse``/``MobileUse`` with ``display_width_px=resized_width``),
so its coordinates are pixels of that frame. Pixel budgets default to Qwen2.5-VL's
``preprocessor_config.json``: ``min_pixels`` 3136 (56x56), ``max_pixels`` 12845056 (16384 x 28x28).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from cua_adapters_qwen.toolcall import QwenToolCallAdapter
from cua_adapters_qwen.tools import computer_use_tool, mobile_use_tool, tools_block
from cua_core import Point, from_pixels, to_pixels

__all__ = ["Qwen25VLAdapter"]


class Qwen25VLAdapter(QwenToolCallAdapter):
    """``qwen2.5-vl``: Qwen-Agent's ``computer_use``/``mobile_use`` in the resized image's pixels."""

    name = "qwen2.5-vl"
    factor = 28
    default_min_pixels = 56 * 56
    default_max_pixels = 16384 * 28 * 28
    computer_actions = frozenset(
        ["key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click",
         "double_click", "scroll", "wait", "terminate"]
    )  # fmt: skip
    expresses: ClassVar[frozenset[str]] = frozenset(
        ["click", "mouse_move", "drag", "scroll", "type", "key", "wait", "done", "fail"]
    )

    def to_model(self, point: Point, size: tuple[int, int]) -> list[int]:
        return list(to_pixels(point, *self.model_size(*size)))

    def from_model(self, x: float, y: float, size: tuple[int, int]) -> Point:
        return from_pixels(x, y, *self.model_size(*size))

    def system_prompt(self, size: tuple[int, int]) -> str:
        width, height = self.model_size(*size)
        tool = mobile_use_tool(width, height) if self.platform == "mobile" else computer_use_tool(width, height)
        return "You are a helpful assistant.\n\n" + tools_block(tool)

    def instruction_text(self, instruction: str, summaries: Sequence[str]) -> str:
        # The cookbooks' user turn: the query, then the steps so far on one line ("Step 1: ...; ").
        text = f"The user query: {instruction}"
        if summaries:
            text += "\nTask progress (You have done the following operation on the current device): "
            text += "".join(f"{summary}; " for summary in summaries)
        return text
