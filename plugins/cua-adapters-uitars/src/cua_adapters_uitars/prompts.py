"""UI-TARS' official prompt templates, byte for byte (the model is sensitive to its training-time prompt).

``COMPUTER_USE`` / ``MOBILE_USE`` (box form) are bytedance/UI-TARS ``codes/prompts.py`` as released with
UI-TARS-1.5 (the README's "Prompt Usage Guide"); ``COMPUTER_USE_DOUBAO`` / ``MOBILE_USE_DOUBAO`` (point
form) are its successor ``codes/ui_tars/prompt.py``. Each has ``{language}`` and ``{instruction}`` slots,
filled with ``str.replace`` so that no other brace is ever read as one. Lines are joined from a tuple
because some end in a space that an editor would strip.
"""

from __future__ import annotations

__all__ = ["COMPUTER_USE", "COMPUTER_USE_DOUBAO", "MOBILE_USE", "MOBILE_USE_DOUBAO", "SYSTEM", "fill"]

# The system message UI-TARS' own agents send (OSWorld mm_agents/uitars_agent.py, README_deploy.md).
SYSTEM = "You are a helpful assistant."

_FENCE = "```"
_TYPE_NOTE = (
    r"# Use escape characters \', \", and \n in content part to ensure we can parse the content in normal"
    r" python string format."
)
_NOTE = (
    "## Note",
    "- Use {language} in `Thought` part.",
    "- Write a small plan and finally summarize your next action (with its target element) in one sentence in "
    "`Thought` part.",
    "",
    "## User Instruction",
    "{instruction}",
    "",
)
_HEAD = "You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform the next action to complete the task."  # noqa: E501
_FORMAT = (_FENCE, "Thought: ...", "Action: ...", _FENCE)

COMPUTER_USE = "\n".join(
    (
        _HEAD,
        "",
        "## Output Format",
        *_FORMAT,
        "",
        "## Action Space",
        "",
        "click(start_box='<|box_start|>(x1,y1)<|box_end|>')",
        "left_double(start_box='<|box_start|>(x1,y1)<|box_end|>')",
        "right_single(start_box='<|box_start|>(x1,y1)<|box_end|>')",
        "drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')",
        "hotkey(key='')",
        "type(content='xxx') " + _TYPE_NOTE + r" If you want to submit your input, use \n at the end of content. ",
        "scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')",
        "wait() #Sleep for 5s and take a screenshot to check for any changes.",
        "finished(content='xxx') " + _TYPE_NOTE,
        "",
        "",
        *_NOTE,
    )
)

MOBILE_USE = "\n".join(
    (
        _HEAD + " ",
        "## Output Format",
        *_FORMAT,
        "## Action Space",
        "",
        "click(start_box='<|box_start|>(x1,y1)<|box_end|>')",
        "long_press(start_box='<|box_start|>(x1,y1)<|box_end|>')",
        "type(content='') #If you want to submit your input, use \"\\n\" at the end of `content`.",
        "scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')",
        "open_app(app_name='')",
        "drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')",
        "press_home()",
        "press_back()",
        "finished(content='xxx') " + _TYPE_NOTE,
        "",
        "",
        *_NOTE,
    )
)

COMPUTER_USE_DOUBAO = "\n".join(
    (
        _HEAD,
        "",
        "## Output Format",
        *_FORMAT,
        "",
        "## Action Space",
        "",
        "click(point='<point>x1 y1</point>')",
        "left_double(point='<point>x1 y1</point>')",
        "right_single(point='<point>x1 y1</point>')",
        "drag(start_point='<point>x1 y1</point>', end_point='<point>x2 y2</point>')",
        "hotkey(key='ctrl c') # Split keys with a space and use lowercase. Also, do not use more than 3 keys in one "
        "hotkey action.",
        "type(content='xxx') " + _TYPE_NOTE + r" If you want to submit your input, use \n at the end of content. ",
        "scroll(point='<point>x1 y1</point>', direction='down or up or right or left') # Show more information on the "
        "`direction` side.",
        "wait() #Sleep for 5s and take a screenshot to check for any changes.",
        "finished(content='xxx') " + _TYPE_NOTE,
        "",
        "",
        *_NOTE,
    )
)

MOBILE_USE_DOUBAO = "\n".join(
    (
        _HEAD + " ",
        "## Output Format",
        *_FORMAT,
        "## Action Space",
        "",
        "click(point='<point>x1 y1</point>')",
        "long_press(point='<point>x1 y1</point>')",
        "type(content='') #If you want to submit your input, use \"\\n\" at the end of `content`.",
        "scroll(point='<point>x1 y1</point>', direction='down or up or right or left')",
        "open_app(app_name='')",
        "drag(start_point='<point>x1 y1</point>', end_point='<point>x2 y2</point>')",
        "press_home()",
        "press_back()",
        "finished(content='xxx') " + _TYPE_NOTE,
        "",
        "",
        *_NOTE,
    )
)


def fill(template: str, *, language: str, instruction: str) -> str:
    return template.replace("{language}", language).replace("{instruction}", instruction)
