"""The OpenCUA and Aguvis prompt texts, verbatim (both models are sensitive to their training-time prompt).

OpenCUA: the system prompts "used in the training data" of OpenCUA-7B/32B (``SYSTEM_PROMPT_V1_L1/L2/L3``),
the step and instruction templates, from xlang-ai/OSWorld ``mm_agents/opencua/prompts.py`` (the agent the
OpenCUA README points to); the history templates match xlang-ai/OpenCUA
``evaluation/agentnetbench/agent/opencua.py``. Aguvis: xlang-ai/aguvis ``src/aguvis/constants.py``
(``grounding_system_message``, ``agent_system_message``, ``user_instruction``).
"""

from __future__ import annotations

import json

__all__ = [
    "AGUVIS_AGENT_SYSTEM",
    "AGUVIS_GROUNDING_SYSTEM",
    "AGUVIS_USER_INSTRUCTION",
    "OPENCUA_ACTION_HISTORY",
    "OPENCUA_INSTRUCTION",
    "OPENCUA_STEP",
    "OPENCUA_SYSTEM",
    "OPENCUA_THOUGHT_HISTORY",
]

_GUI_AGENT = (
    "You are a GUI agent. You are given a task and a screenshot of the screen. "
    "You need to perform a series of pyautogui actions to complete the task."
)
_FORMAT = "\n\nFor each step, provide your response in this format:\n\n"
_OBSERVATION = (
    "Observation:\n  - Describe the current computer state based on the full screenshot in detail. \n"
    "  - Application Context:\n    - The active application\n    - The active window or page\n"
    "    - Overall layout and visible interface\n  - Key Elements:\n    - Menu items and toolbars \n"
    "    - Buttons and controls\n    - Text fields and content\n    - Dialog boxes or popups\n"
    "    - Error messages or notifications\n    - Loading states\n    - Other key elements\n"
    "  - Describe any content, elements, options, information or clues that are possibly relevant to achieving "
    "the task goal, including their name, content, or shape (if possible).\n\n"
)
_THOUGHT = (
    "Thought:\n  - Step by Step Progress Assessment:\n"
    "    - Analyze completed task parts and their contribution to the overall goal\n"
    "    - Reflect on potential errors, unexpected results, or obstacles\n"
    "    - If previous action was incorrect, predict a logical recovery step\n"
    "  - Next Action Analysis:\n    - List possible next actions based on current state\n"
    "    - Evaluate options considering current state and previous actions\n"
    "    - Propose most logical next action\n    - Anticipate consequences of the proposed action\n"
    "  - For Text Input Actions:\n    - Note current cursor position\n"
    "    - Consolidate repetitive actions (specify count for multiple keypresses)\n"
    "    - Describe expected final text outcome\n  - Use first-person perspective in reasoning\n\n"
)
_ACTION = (
    "Action:\n  Provide clear, concise, and actionable instructions:\n"
    "  - If the action involves interacting with a specific target:\n"
    "    - Describe target explicitly without using coordinates\n"
    "    - Specify element names when possible (use original language if non-English)\n"
    "    - Describe features (shape, color, position) if name unavailable\n"
    '    - For window control buttons, identify correctly (minimize "—", maximize "□", close "X")\n'
    "  - if the action involves keyboard actions like 'press', 'write', 'hotkey':\n"
    "    - Consolidate repetitive keypresses with count\n    - Specify expected text outcome for typing actions\n\n"
)
_TRIPLE_CLICK = {
    "name": "computer.triple_click",
    "description": "Triple click on the screen",
    "parameters": {
        "type": "object",
        "properties": {
            "x": {"type": "number", "description": "The x coordinate of the triple click"},
            "y": {"type": "number", "description": "The y coordinate of the triple click"},
        },
        "required": ["x", "y"],
    },
}
_TERMINATE = {
    "name": "computer.terminate",
    "description": "Terminate the current task and report its completion status",
    "parameters": {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["success", "fail"], "description": "The status of the task"}
        },
        "required": ["status"],
    },
}
_FUNCTIONS = (
    "Finally, output the action as PyAutoGUI code or the following functions:\n"
    f"- {json.dumps(_TRIPLE_CLICK, ensure_ascii=False)}\n- {json.dumps(_TERMINATE, ensure_ascii=False)}"
)

OPENCUA_SYSTEM = {
    "l1": _GUI_AGENT + _FORMAT + _ACTION + _FUNCTIONS,
    "l2": _GUI_AGENT + _FORMAT + _THOUGHT + _ACTION + _FUNCTIONS,
    "l3": _GUI_AGENT + _FORMAT + _OBSERVATION + _THOUGHT + _ACTION + _FUNCTIONS,
}
"""System prompt by CoT level: L1 action only, L2 thought and action, L3 observation, thought and action."""

OPENCUA_STEP = "# Step {step_num}:\n"
OPENCUA_INSTRUCTION = (
    "# Task Instruction:\n{instruction}\n\n"
    "Please generate the next move according to the screenshot, task instruction and previous steps (if provided).\n"
)
OPENCUA_ACTION_HISTORY = "## Action:\n{action}\n"
OPENCUA_THOUGHT_HISTORY = "## Thought:\n{thought}\n\n## Action:\n{action}\n"

AGUVIS_GROUNDING_SYSTEM = _GUI_AGENT
_MOBILE_FUNCTIONS = (
    {
        "name": "mobile.swipe",
        "description": "Swipe on the screen",
        "parameters": {
            "type": "object",
            "properties": {
                "from_coord": {
                    "type": "array",
                    "items": {"type": "number"},
                    "description": "The starting coordinates of the swipe",
                },
                "to_coord": {
                    "type": "array",
                    "items": {"type": "number"},
                    "description": "The ending coordinates of the swipe",
                },
            },
            "required": ["from_coord", "to_coord"],
        },
    },
    {"name": "mobile.home", "description": "Press the home button"},
    {"name": "mobile.back", "description": "Press the back button"},
    {
        "name": "mobile.wait",
        "description": "wait for the change to happen",
        "parameters": {
            "type": "object",
            "properties": {"seconds": {"type": "number", "description": "The seconds to wait"}},
            "required": ["seconds"],
        },
    },
    {
        "name": "mobile.long_press",
        "description": "Long press on the screen",
        "parameters": {
            "type": "object",
            "properties": {
                "x": {"type": "number", "description": "The x coordinate of the long press"},
                "y": {"type": "number", "description": "The y coordinate of the long press"},
            },
            "required": ["x", "y"],
        },
    },
    {
        "name": "mobile.open_app",
        "description": "Open an app on the device",
        "parameters": {
            "type": "object",
            "properties": {"app_name": {"type": "string", "description": "The name of the app to open"}},
            "required": ["app_name"],
        },
    },
)
AGUVIS_AGENT_SYSTEM = (
    _GUI_AGENT
    + "\n\nYou have access to the following functions:\n"
    + "".join(f"- {json.dumps(function)}\n" for function in _MOBILE_FUNCTIONS)
)
AGUVIS_USER_INSTRUCTION = (
    "Please generate the next move according to the ui screenshot, instruction and previous actions.\n\n"
    "Instruction: {overall_goal}\n\nPrevious actions:\n{previous_actions}\n"
)
