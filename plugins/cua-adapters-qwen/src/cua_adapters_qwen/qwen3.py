"""Qwen3-VL: the same tool calls with coordinates in thousandths of the screen, after an ``Action:`` line.

Qwen3-VL writes positions on a 0-1000 grid whatever the image size; its cookbooks map them back
as ``x / 1000 * width`` (OSWorld's ``mm_agents/qwen3vl_agent.py`` uses ``/ 999``, a 0.1% difference
we do not follow). That is already our unified scale, so a model coordinate is the unified value
itself (a point up to ``OVERSHOOT`` thousandths past the grid is clipped to its edge; further out it
is refused); writing one takes the cell it falls in (``to_pixels`` on a 1000x1000 grid), so that
unified -> model -> unified -> pixel is exact. Images follow ``smart_resize`` with factor 32 (patch
16 x merge 2) and the pixel cap of OSWorld's agent (``16 * 16 * 4 * 12800``), ``min_pixels`` 65536
as Qwen3-VL's processor (``size.shortest_edge``).

The prompt is OSWorld's (y786449628-ai/OSWorld-Microsoft ``mm_agents/qwen3vl_agent.py``): the
``computer_use`` tool with "The screen's resolution is 1000x1000", then the response format
"1) Action: ... 2) A single <tool_call>...</tool_call>"; on mobile, Qwen's ``mobile_use`` tool with
the Thought/Action/tool_call layout of Qwen3-VL's ``cookbooks/mobile_agent.ipynb``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from cua_adapters_qwen.toolcall import QwenToolCallAdapter
from cua_adapters_qwen.tools import FN_CALL_TEMPLATE, mobile_use_tool, tools_block
from cua_core import ActionError, Point, to_pixels

__all__ = ["OVERSHOOT", "Qwen3VLAdapter"]

GRID = 1000
# Qwen-VL models write coordinates as text, and a point at the screen's edge can come out a little past
# the grid: QwenLM/Qwen3-VL#1035 (Qwen2.5-VL box edges drifting off the image; the maintainers advise
# clipping to the image, which we do up to this many thousandths), Yan98/GTA1#8 (0-1000 grounding data
# holding 1003). Further out the number is not a thousandth of the screen (a pixel of the screenshot,
# most likely), and clipping it would click somewhere else.
OVERSHOOT = 20

_DESCRIPTION = "\n".join(
    [
        "Use a mouse and keyboard to interact with a computer, and take screenshots.",
        "* This is an interface to a desktop GUI. You do not have access to a terminal or applications menu. "
        "You must click on desktop icons to start applications.",
        "* Some applications may take time to start or process actions, so you may need to wait and take "
        "successive screenshots to see the results of your actions. E.g. if you click on Firefox and a window "
        "doesn't open, try wait and taking another screenshot.",
        "* The screen's resolution is 1000x1000.",
        "* Whenever you intend to move the cursor to click on an element like an icon, you should consult a "
        "screenshot to determine the coordinates of the element before moving the cursor.",
        "* If you tried clicking on a program or link but it failed to load even after waiting, try adjusting "
        "your cursor position so that the tip of the cursor visually falls on the element that you want to click.",
        "* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. "
        "Don't click boxes on their edges unless asked.",
    ]
)
# Verbatim, blank first line and trailing indentation included: it is a triple-quoted string there.
_ACTIONS = """
* `key`: Performs key down presses on the arguments passed in order, then performs key releases in reverse order.
* `type`: Type a string of text on the keyboard.
* `mouse_move`: Move the cursor to a specified (x, y) pixel coordinate on the screen.
* `left_click`: Click the left mouse button at a specified (x, y) pixel coordinate on the screen.
* `left_click_drag`: Click and drag the cursor to a specified (x, y) pixel coordinate on the screen.
* `right_click`: Click the right mouse button at a specified (x, y) pixel coordinate on the screen.
* `middle_click`: Click the middle mouse button at a specified (x, y) pixel coordinate on the screen.
* `double_click`: Double-click the left mouse button at a specified (x, y) pixel coordinate on the screen.
* `triple_click`: Triple-click the left mouse button at a specified (x, y) pixel coordinate on the screen (simulated as double-click since it's the closest action).
* `scroll`: Performs a scroll of the mouse scroll wheel.
* `hscroll`: Performs a horizontal scroll (mapped to regular scroll).
* `wait`: Wait specified seconds for the change to happen.
* `terminate`: Terminate the current task and report its completion status.
* `answer`: Answer a question.
        """  # noqa: E501

_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name_for_human": "computer_use",
        "name": "computer_use",
        "description": _DESCRIPTION,
        "parameters": {
            "properties": {
                "action": {
                    "description": _ACTIONS,
                    "enum": ["key", "type", "mouse_move", "left_click", "left_click_drag",
                             "right_click", "middle_click", "double_click", "scroll", "wait", "terminate"],
                    "type": "string",
                },
                "keys": {"description": "Required only by `action=key`.", "type": "array"},
                "text": {"description": "Required only by `action=type`.", "type": "string"},
                "coordinate": {"description": "The x,y coordinates for mouse actions.", "type": "array"},
                "pixels": {"description": "The amount of scrolling.", "type": "number"},
                "time": {"description": "The seconds to wait.", "type": "number"},
                "status": {"description": "The status of the task.", "type": "string", "enum": ["success", "failure"]},
            },
            "required": ["action"],
            "type": "object",
        },
        "args_format": "Format the arguments as a JSON object.",
    },
}  # fmt: skip

_DESKTOP_FORMAT = """

# Response format

Response format for every step:
1) Action: a short imperative describing what to do in the UI.
2) A single <tool_call>...</tool_call> block containing only the JSON: {"name": <function-name>, "arguments": <args-json-object>}.

Rules:
- Output exactly in the order: Action, <tool_call>.
- Be brief: one sentence for Action.
- Do not output anything else outside those parts.
- If finishing, use action=terminate in the tool call."""  # noqa: E501

_MOBILE_FORMAT = """

# Response format

Response format for every step:
1) Thought: one concise sentence explaining the next move (no multi-step reasoning).
2) Action: a short imperative describing what to do.
3) A single <tool_call>...</tool_call> block containing only the JSON: {"name": <function-name>, "arguments": <args-json-object>}.

Rules:
- Output exactly in the order: Thought, Action, <tool_call>.
- Be brief: one sentence for Thought, one for Action.
- Do not output anything else outside those three parts.
- If finishing, use mobile_use with action=terminate in the tool call."""  # noqa: E501


class Qwen3VLAdapter(QwenToolCallAdapter):
    """``qwen3-vl``: ``Action: ...`` then ``<tool_call>`` blocks with coordinates in [0, 1000]."""

    name = "qwen3-vl"
    factor = 32
    default_min_pixels = 65536
    default_max_pixels = 16 * 16 * 4 * 12800
    computer_actions = frozenset(
        ["key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click",
         "double_click", "triple_click", "scroll", "hscroll", "wait", "terminate", "answer"]
    )  # fmt: skip
    expresses: ClassVar[frozenset[str]] = frozenset(
        ["click", "mouse_move", "drag", "scroll", "type", "key", "wait", "done", "fail"]
    )

    def to_model(self, point: Point, size: tuple[int, int]) -> list[int]:
        return list(to_pixels(point, GRID, GRID))

    def from_model(self, x: float, y: float, size: tuple[int, int]) -> Point:
        if not (-OVERSHOOT <= x <= GRID + OVERSHOOT and -OVERSHOOT <= y <= GRID + OVERSHOOT):
            raise ActionError(
                f"coordinate [{x:g}, {y:g}] is outside Qwen3-VL's 0-1000 grid by more than {OVERSHOOT}: Qwen3-VL "
                "writes thousandths of the screen, not pixels; for a model that writes pixels of the image it is "
                "shown (Qwen2.5-VL and models trained like it), use --adapter qwen2.5-vl"
            )
        return Point(min(max(x, 0), GRID), min(max(y, 0), GRID))

    def system_prompt(self, size: tuple[int, int]) -> str:
        if self.platform == "mobile":
            return tools_block(mobile_use_tool(GRID, GRID)) + _MOBILE_FORMAT
        return FN_CALL_TEMPLATE.format(tool_descs=json.dumps(_TOOL)) + _DESKTOP_FORMAT

    def instruction_text(self, instruction: str, summaries: Sequence[str]) -> str:
        if self.platform == "mobile":
            steps = "".join(f"{summary}; " for summary in summaries)
            return f"\nThe user query: {instruction}\nTask progress (You have done the following operation on the current device): {steps}\n"  # noqa: E501
        previous = "\n".join(summaries) if summaries else "None"
        return (
            "\nPlease generate the next move according to the UI screenshot, instruction and previous actions."
            f"\n\nInstruction: {instruction}\n\nPrevious actions:\n{previous}"
        )

    def preamble(self, thought: str | None) -> str:
        # The layout asks for "Action: <one sentence>"; a thought already in that layout stays as written.
        if not thought or not thought.strip():
            return ""
        text = thought.strip()
        return text if text.startswith(("Action:", "Thought:")) else f"Action: {text}"
