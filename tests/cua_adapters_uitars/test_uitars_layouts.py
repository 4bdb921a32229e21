"""The layouts real UI-TARS models write besides ``Thought: ...\\nAction: ...``.

- ``Action:`` on the thought's own line: the official parser splits at "Action: " anywhere
  (bytedance/UI-TARS ``codes/ui_tars/action_parser.py``: ``text.split("Action: ")[-1]``).
- The full-width colon ``Action：`` / ``Thought：`` of Chinese outputs (UI-TARS-desktop's
  ``actionParser.ts`` looks for both ``Action:`` and ``Action：``).
- UI-TARS-2 / Seed: a reasoning block in think tags (``<think_never_used_<hex>>``, a suffix that
  varies by deployment), then ``<seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter>
  </function></seed:tool_call>`` (the Seed tool-call format; trycua/cua ``agent/loops/uitars2.py``,
  vLLM's ``seed_oss_tool_parser.py``), or ``<computer_env>Action: ...</computer_env>`` and
  ``<answer>...</answer>`` (UI-TARS-desktop's ``OmniFormatParser``). Coordinates are thousandths.

The texts below are written for these tests in those formats.
"""

from __future__ import annotations

import pytest

from cua_adapters_uitars import CALL_USER_REASON, WAIT_SECONDS, UITars15Adapter, UITarsAdapter
from cua_core import actions as ua
from cua_data.adapters import AdapterParseError

SCREEN = (1920, 1080)
HEX = "0f3a9c2e7d51b8a46e0c93f2d1b7a5c8"  # the think tag's suffix; any hex string


@pytest.mark.parametrize(
    ("text", "actions", "thought"),
    [
        (
            "Thought: The Save button is in the toolbar. Action: click(start_box='(120,40)')",
            [ua.Click(ua.Point(120, 40))],
            "The Save button is in the toolbar.",
        ),
        (
            "Thought：工具栏里有保存按钮，点击它。\nAction：click(start_box='(120,40)')",
            [ua.Click(ua.Point(120, 40))],
            "工具栏里有保存按钮，点击它。",
        ),
        (
            "Thought: I will click it. Action：left_double(point='<point>5 6</point>')",
            [ua.Click(ua.Point(5, 6), clicks=2)],
            "I will click it.",
        ),
        (
            # An "Action:" in the thought that is not followed by a call is part of the thought.
            "Thought: Action: items are listed below. Action: wait()",
            [ua.Wait(WAIT_SECONDS)],
            "Action: items are listed below.",
        ),
    ],
)
def test_action_anywhere_and_full_width_colons(text: str, actions: list[ua.Action], thought: str) -> None:
    parsed = UITarsAdapter().parse(text, SCREEN)
    assert parsed.actions == actions
    assert parsed.thought == thought


SEED_CLICK_AND_TYPE = (
    f"<think_never_used_{HEX}>The search box is at the top of the page; click it and search.</think_never_used_{HEX}>\n"
    "<seed:tool_call><function=click><parameter=point><point>512 48</point></parameter></function>"
    "<function=type><parameter=content>weather in Paris\\n</parameter></function></seed:tool_call>"
)


def test_seed_tool_calls() -> None:
    parsed = UITarsAdapter().parse(SEED_CLICK_AND_TYPE, SCREEN)
    assert parsed.actions == [ua.Click(ua.Point(512, 48)), ua.TypeText("weather in Paris", press_enter=True)]
    assert parsed.thought == "The search box is at the top of the page; click it and search."


@pytest.mark.parametrize(
    ("call", "action"),
    [
        (
            "<function=left_double><parameter=point><point>1 2</point></parameter></function>",
            ua.Click(ua.Point(1, 2), clicks=2),
        ),
        (
            "<function=right_single><parameter=point><point>1 2</point></parameter></function>",
            ua.Click(ua.Point(1, 2), "right"),
        ),
        (
            "<function=drag><parameter=start_point><point>1 2</point></parameter>"
            "<parameter=end_point><point>3 4</point></parameter></function>",
            ua.Drag(ua.Point(1, 2), ua.Point(3, 4)),
        ),
        (
            "<function=scroll><parameter=point><point>7 8</point></parameter><parameter=direction>down</parameter></function>",
            ua.Scroll("down", 5, ua.Point(7, 8)),
        ),
        ("<function=move_to><parameter=point><point>9 9</point></parameter></function>", ua.MouseMove(ua.Point(9, 9))),
        (
            "<function=mouse_down><parameter=point><point>9 9</point></parameter><parameter=button>right</parameter></function>",
            ua.MouseDown("right", ua.Point(9, 9)),
        ),
        ("<function=mouse_up></function>", ua.MouseUp()),
        ("<function=hotkey><parameter=key>ctrl c</parameter></function>", ua.KeyPress(("ctrl", "c"))),
        # A value may be laid out on lines of its own: one newline either side is layout, not text.
        (
            "<function=type><parameter=content>\nline one\nline two\n</parameter></function>",
            ua.TypeText("line one\nline two"),
        ),
        ("<function=wait><parameter=time>3</parameter></function>", ua.Wait(3.0)),
        ("<function=wait></function>", ua.Wait(WAIT_SECONDS)),
        ("<function=take_screenshot></function>", ua.Screenshot()),
        ("<function=finished><parameter=content>42</parameter></function>", ua.Done("42")),
        (
            "<function=call_user><parameter=content>Which account?</parameter></function>",
            ua.Fail(f"{CALL_USER_REASON}: Which account?"),
        ),
        ("<function=infeasible><parameter=content>No such file.</parameter></function>", ua.Fail("No such file.")),
        # Doubao's attribute form, and tags carrying the deployment's suffix.
        (
            '<function name="click"><parameter name="point" string="true"><point>500 500</point></parameter></function>',
            ua.Click(ua.Point(500, 500)),
        ),
        (
            f"<function_never_used_{HEX}=click><parameter_never_used_{HEX}=point><point>500 500</point>"
            f"</parameter_never_used_{HEX}></function_never_used_{HEX}>",
            ua.Click(ua.Point(500, 500)),
        ),
    ],
)
def test_seed_functions(call: str, action: ua.Action) -> None:
    assert UITarsAdapter().parse(f"<seed:tool_call>{call}</seed:tool_call>", SCREEN).actions == [action]


def test_seed_tool_call_tags_with_a_suffix() -> None:
    text = (
        f"<seed:tool_call_never_used_{HEX}><function_never_used_{HEX}=hotkey><parameter_never_used_{HEX}=key>enter"
        f"</parameter_never_used_{HEX}></function_never_used_{HEX}></seed:tool_call_never_used_{HEX}>"
    )
    assert UITarsAdapter().parse(text, SCREEN).actions == [ua.KeyPress(("enter",))]


def test_computer_env_and_answer_blocks() -> None:
    env = (
        "<think>The dialog asks to confirm; press OK.</think>\n"
        "<computer_env>\nAction: click(point='<point>640 410</point>')\n</computer_env>"
    )
    parsed = UITarsAdapter().parse(env, SCREEN)
    assert parsed.actions == [ua.Click(ua.Point(640, 410))]
    assert parsed.thought == "The dialog asks to confirm; press OK."
    answer = f"<think_never_used_{HEX}>The page shows the price.</think_never_used_{HEX}>\n<answer>\nIt costs 42 EUR.\n</answer>"
    parsed = UITarsAdapter().parse(answer, SCREEN)
    assert parsed.actions == [ua.Done("It costs 42 EUR.")]
    assert parsed.thought == "The page shows the price."
    # "Action:" is optional inside <computer_env>; an empty answer is finished() (UI-TARS-desktop does both).
    bare = UITarsAdapter().parse("<computer_env>wait()</computer_env>", SCREEN)
    assert bare.actions == [ua.Wait(WAIT_SECONDS)]
    assert UITarsAdapter().parse("<answer></answer>", SCREEN).actions == [ua.Done()]


def test_a_think_block_before_the_classic_layout() -> None:
    text = (
        f"<think_never_used_{HEX}>Plan: save.</think_never_used_{HEX}>Thought: Save now.\nAction: hotkey(key='ctrl s')"
    )
    parsed = UITarsAdapter().parse(text, SCREEN)
    assert parsed.actions == [ua.KeyPress(("ctrl", "s"))]
    assert parsed.thought == "Plan: save.\n\nSave now."


def test_seed_coordinates_mean_what_the_adapter_says() -> None:
    # UI-TARS-2 writes thousandths: `ui-tars` reads them so; `ui-tars-1.5` would take them for pixels.
    text = "<seed:tool_call><function=click><parameter=point><point>500 500</point></parameter></function></seed:tool_call>"
    assert UITarsAdapter().parse(text, SCREEN).actions == [ua.Click(ua.Point(500, 500))]
    assert UITars15Adapter().parse(text, SCREEN).actions != [ua.Click(ua.Point(500, 500))]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<seed:tool_call></seed:tool_call>", "no <function=...> call"),
        ("<seed:tool_call><function=fly></function></seed:tool_call>", "unknown action 'fly'"),
        (
            "<seed:tool_call><function=click><parameter=target>x</parameter></function></seed:tool_call>",
            "click takes start_box, not target",
        ),
        ("<computer_env>\nclick()\n</computer_env>", "click needs start_box="),
    ],
)
def test_bad_seed_outputs_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(AdapterParseError, match=r"^ui-tars: ") as caught:
        UITarsAdapter().parse(text, SCREEN)
    assert message in str(caught.value)
