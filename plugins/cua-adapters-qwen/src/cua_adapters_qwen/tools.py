# ruff: noqa: E501 - the prompt texts are verbatim, one line per bullet as the model saw them
"""The ``computer_use`` and ``mobile_use`` tool descriptions Qwen-VL models were prompted with, verbatim.

The texts are Qwen's own, so that a prompt we render is the prompt the model saw in its cookbooks:
QwenLM/Qwen2.5-VL ``cookbooks/utils/agent_function_call.py`` (``ComputerUse``, ``MobileUse``; the
Qwen3-VL repository's copy adds ``triple_click``, ``hscroll`` and ``answer``), laid out by Qwen-Agent's
``NousFnCallPrompt`` (``qwen_agent/llm/fncall_prompts/nous_fncall_prompt.py``: ``FN_CALL_TEMPLATE``,
one ``{"type": "function", "function": ...}`` JSON line per tool). The cookbook notebooks printed
the function with ``name_for_human`` and ``args_format`` (the Qwen-Agent of their day), so we do too.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["FN_CALL_TEMPLATE", "computer_use_tool", "mobile_use_tool", "tools_block"]

FN_CALL_TEMPLATE = """# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{tool_descs}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{{"name": <function-name>, "arguments": <args-json-object>}}
</tool_call>"""

_COMPUTER_DESCRIPTION = """Use a mouse and keyboard to interact with a computer, and take screenshots.
* This is an interface to a desktop GUI. You do not have access to a terminal or applications menu. You must click on desktop icons to start applications.
* Some applications may take time to start or process actions, so you may need to wait and take successive screenshots to see the results of your actions. E.g. if you click on Firefox and a window doesn't open, try wait and taking another screenshot.
* The screen's resolution is {width}x{height}.
* Whenever you intend to move the cursor to click on an element like an icon, you should consult a screenshot to determine the coordinates of the element before moving the cursor.
* If you tried clicking on a program or link but it failed to load, even after waiting, try adjusting your cursor position so that the tip of the cursor visually falls on the element that you want to click.
* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't click boxes on their edges unless asked."""

_COMPUTER_ACTIONS = """The action to perform. The available actions are:
* `key`: Performs key down presses on the arguments passed in order, then performs key releases in reverse order.
* `type`: Type a string of text on the keyboard.
* `mouse_move`: Move the cursor to a specified (x, y) pixel coordinate on the screen.
* `left_click`: Click the left mouse button.
* `left_click_drag`: Click and drag the cursor to a specified (x, y) pixel coordinate on the screen.
* `right_click`: Click the right mouse button.
* `middle_click`: Click the middle mouse button.
* `double_click`: Double-click the left mouse button.
* `scroll`: Performs a scroll of the mouse scroll wheel.
* `wait`: Wait specified seconds for the change to happen.
* `terminate`: Terminate the current task and report its completion status."""

_MOBILE_DESCRIPTION = """Use a touchscreen to interact with a mobile device, and take screenshots.
* This is an interface to a mobile device with touchscreen. You can perform actions like clicking, typing, swiping, etc.
* Some applications may take time to start or process actions, so you may need to wait and take successive screenshots to see the results of your actions.
* The screen's resolution is {width}x{height}.
* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't click boxes on their edges unless asked."""

_MOBILE_ACTIONS = """The action to perform. The available actions are:
* `key`: Perform a key event on the mobile device.
    - This supports adb's `keyevent` syntax.
    - Examples: "volume_up", "volume_down", "power", "camera", "clear".
* `click`: Click the point on the screen with coordinate (x, y).
* `long_press`: Press the point on the screen with coordinate (x, y) for specified seconds.
* `swipe`: Swipe from the starting point with coordinate (x, y) to the end point with coordinates2 (x2, y2).
* `type`: Input the specified text into the activated input box.
* `system_button`: Press the system button.
* `open`: Open an app on the device.
* `wait`: Wait specified seconds for the change to happen.
* `terminate`: Terminate the current task and report its completion status."""

_POINT = "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to."


def _function(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "name_for_human": name,
        "name": name,
        "description": description,
        "parameters": parameters,
        "args_format": "Format the arguments as a JSON object.",
    }


def computer_use_tool(width: int, height: int) -> dict[str, Any]:
    """Qwen2.5-VL's ``ComputerUse`` function for a screen the model sees as ``width`` x ``height``."""
    status = {
        "description": "The status of the task. Required only by `action=terminate`.",
        "type": "string",
        "enum": ["success", "failure"],
    }
    parameters = {
        "properties": {
            "action": {
                "description": _COMPUTER_ACTIONS,
                "enum": [
                    "key", "type", "mouse_move", "left_click", "left_click_drag",
                    "right_click", "middle_click", "double_click", "scroll", "wait", "terminate",
                ],
                "type": "string",
            },
            "keys": {"description": "Required only by `action=key`.", "type": "array"},
            "text": {"description": "Required only by `action=type`.", "type": "string"},
            "coordinate": {
                "description": _POINT + " Required only by `action=mouse_move` and `action=left_click_drag`.",
                "type": "array",
            },
            "pixels": {
                "description": "The amount of scrolling to perform. Positive values scroll up, negative values "
                "scroll down. Required only by `action=scroll`.",
                "type": "number",
            },
            "time": {"description": "The seconds to wait. Required only by `action=wait`.", "type": "number"},
            "status": status,
        },
        "required": ["action"],
        "type": "object",
    }  # fmt: skip
    return _function("computer_use", _COMPUTER_DESCRIPTION.format(width=width, height=height), parameters)


def mobile_use_tool(width: int, height: int) -> dict[str, Any]:
    """Qwen2.5-VL's ``MobileUse`` function for a screen the model sees as ``width`` x ``height``."""
    parameters = {
        "properties": {
            "action": {
                "description": _MOBILE_ACTIONS,
                "enum": ["key", "click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate"],
                "type": "string",
            },
            "coordinate": {
                "description": _POINT + " Required only by `action=click`, `action=long_press`, and `action=swipe`.",
                "type": "array",
            },
            "coordinate2": {"description": _POINT + " Required only by `action=swipe`.", "type": "array"},
            "text": {
                "description": "Required only by `action=key`, `action=type`, and `action=open`.",
                "type": "string",
            },
            "time": {
                "description": "The seconds to wait. Required only by `action=long_press` and `action=wait`.",
                "type": "number",
            },
            "button": {
                "description": "Back means returning to the previous interface, Home means returning to the "
                "desktop, Menu means opening the application background menu, and Enter means pressing the "
                "enter. Required only by `action=system_button`",
                "enum": ["Back", "Home", "Menu", "Enter"],
                "type": "string",
            },
            "status": {
                "description": "The status of the task. Required only by `action=terminate`.",
                "type": "string",
                "enum": ["success", "failure"],
            },
        },
        "required": ["action"],
        "type": "object",
    }
    return _function("mobile_use", _MOBILE_DESCRIPTION.format(width=width, height=height), parameters)


def tools_block(function: dict[str, Any], *, ensure_ascii: bool = False) -> str:
    """``FN_CALL_TEMPLATE`` filled with one tool, as ``NousFnCallPrompt.preprocess_fncall_messages`` writes it."""
    line = json.dumps({"type": "function", "function": function}, ensure_ascii=ensure_ascii)
    return FN_CALL_TEMPLATE.format(tool_descs=line)
