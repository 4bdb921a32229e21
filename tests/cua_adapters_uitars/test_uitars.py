"""The UI-TARS adapters against real outputs, their own grammar, round trips, prompts and options."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from support.model_outputs import model_outputs

from cua_adapters_uitars import CALL_USER_REASON, SCROLL_CLICKS, WAIT_SECONDS, UITars15Adapter, UITarsAdapter
from cua_core import actions as ua
from cua_core.errors import ActionError
from cua_data.adapters import Adapter, AdapterParseError, HistoryPolicy, Turn
from cua_data.registry import adapters

SCREEN = (1920, 1080)
# smart_resize(1080, 1920, factor=28, min 100*28*28, max 16384*28*28): 1080/28 = 38.6 -> 39*28 = 1092,
# 1920/28 = 68.6 -> 69*28 = 1932; 1932*1092 is within the budget, so no further scaling.
FRAME = (1932, 1092)


def px(x: float, y: float, frame: tuple[int, int] = FRAME) -> ua.Point:
    """Pixel (x, y) of the model frame as a unified point: the pixel's centre, by hand."""
    return ua.Point((x + 0.5) * 1000 / frame[0], (y + 0.5) * 1000 / frame[1])


def blocks(shared_fixtures: Path) -> list[str]:
    return model_outputs(shared_fixtures, "ui_tars.txt")


# Block -> (adapter, expected actions, thought). Provenance in the fixture's header: 1-3 and 5 are
# UI-TARS-1.5 (absolute, the README / coordinates guide / the parser test with model_type qwen25vl),
# 4 is codes/README.md's doubao example (model_type="doubao", factor 1000: relative), 6-7 the v1
# training records (<|box_start|> boxes, relative), 8 trycua's UI-TARS-1.5 loop test (absolute).
EXPECTED: list[tuple[type[Adapter], list[ua.Action], str | None]] = [
    (UITars15Adapter, [ua.Click(px(177, 549))], "我看到Preferences窗口已经打开了"),
    (UITars15Adapter, [ua.Click(px(100, 200))], "Click the button"),
    (UITars15Adapter, [ua.Click(px(197, 525))], "xxx"),
    (UITarsAdapter, [ua.Click(ua.Point(200, 300))], "Click the button"),
    (UITars15Adapter, [ua.Click(px(200, 300))], "test"),
    (UITarsAdapter, [ua.Click(ua.Point(495, 30))], None),
    (UITarsAdapter, [ua.Click(ua.Point(293, 218))], None),
    (UITars15Adapter, [ua.Click(px(500, 500))], None),
]


def test_the_registry_lists_both_families() -> None:
    assert adapters()["ui-tars"] is UITarsAdapter
    assert adapters()["ui-tars-1.5"] is UITars15Adapter


def test_model_frame_is_smart_resized_with_ui_tars_budget() -> None:
    assert UITars15Adapter().model_size(*SCREEN) == FRAME
    # 224x224 is under min_pixels (78400): scaled up by sqrt(78400/50176) = 1.25 to 280x280.
    assert UITars15Adapter().model_size(224, 224) == (280, 280)
    assert UITars15Adapter(min_pixels=1).model_size(224, 224) == (224, 224)


@pytest.mark.parametrize("index", range(len(EXPECTED)))
def test_fixture_blocks_parse_to_the_right_actions(shared_fixtures: Path, index: int) -> None:
    block = blocks(shared_fixtures)[index]
    family, expected, thought = EXPECTED[index]
    parsed = family().parse(block, SCREEN)
    assert parsed.actions == expected
    assert parsed.raw == block
    if thought is None:
        assert parsed.thought is None
    else:
        assert parsed.thought is not None and parsed.thought.startswith(thought)


def test_fixture_has_eight_blocks(shared_fixtures: Path) -> None:
    assert len(blocks(shared_fixtures)) == len(EXPECTED) == 8


def test_the_parser_tests_frame_puts_block_5_off_the_image(shared_fixtures: Path) -> None:
    # action_parser_test.py parses block 5 for a 224x224 image with min_pixels=1: y=300 is below its bottom.
    with pytest.raises(AdapterParseError, match="outside the screen"):
        UITars15Adapter(min_pixels=1).parse(blocks(shared_fixtures)[4], (224, 224))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Action: click(start_box='<|box_start|>(100,200,300,400)<|box_end|>')", [ua.Click(ua.Point(200, 300))]),
        ("Action: click(start_box='[100, 200, 300, 400]')", [ua.Click(ua.Point(200, 300))]),
        ("Action: click(point='<point>10 20</point>')", [ua.Click(ua.Point(10, 20))]),
        ("Action: left_double(start_box='(1,2)')", [ua.Click(ua.Point(1, 2), clicks=2)]),
        ("Action: right_single(start_box='(1,2)')", [ua.Click(ua.Point(1, 2), "right")]),
        ("Action: hover(start_box='(1,2)')", [ua.MouseMove(ua.Point(1, 2))]),
        (
            "Action: drag(start_point='<point>1 2</point>', end_point='<point>3 4</point>')",
            [ua.Drag(ua.Point(1, 2), ua.Point(3, 4))],
        ),
        ("Action: hotkey(key='ctrl c')", [ua.KeyPress(("ctrl", "c"))]),
        ("Action: hotkey(key='ctrl+shift+t')", [ua.KeyPress(("ctrl", "shift", "t"))]),
        ("Action: hotkey(key='arrowleft')", [ua.KeyPress(("left",))]),
        ("Action: press(key='enter')", [ua.KeyPress(("enter",))]),
        ("Action: keydown(key='shift')", [ua.KeyDown("shift")]),
        ("Action: keyup(key='shift')", [ua.KeyUp("shift")]),
        ("Action: type(content='hello\\n')", [ua.TypeText("hello", press_enter=True)]),
        ("Action: type(content='it\\'s')", [ua.TypeText("it's")]),
        ("Action: type(content='two\nlines')", [ua.TypeText("two\nlines")]),
        ("Action: type(content='don't stop')", [ua.TypeText("don't stop")]),  # unescaped quote: the fallback
        ("Action: scroll(start_box='(5,6)', direction='down')", [ua.Scroll("down", SCROLL_CLICKS, ua.Point(5, 6))]),
        ("Action: scroll(direction='up')", [ua.Scroll("up", SCROLL_CLICKS)]),
        ("Action: scroll(start_box='(8,2)', end_box='(2,8)')", [ua.Drag(ua.Point(8, 2), ua.Point(2, 8))]),
        ("Action: wait()", [ua.Wait(WAIT_SECONDS)]),
        ("Action: finished()", [ua.Done()]),
        ("Action: finished(content='42')", [ua.Done("42")]),
        ("Action: finished(content='')", [ua.Done()]),
        ("Action: call_user()", [ua.Fail(CALL_USER_REASON)]),
        (
            "Thought: two steps\nAction: click(start_box='(1,1)')\n\ntype(content='x')",
            [ua.Click(ua.Point(1, 1)), ua.TypeText("x")],
        ),
        ("Thought: I see Action: items\nAction: wait()", [ua.Wait(WAIT_SECONDS)]),
        ("Reflection: r\nAction_Summary: s\nAction: wait()", [ua.Wait(WAIT_SECONDS)]),
    ],
)
def test_grammar(text: str, expected: list[ua.Action]) -> None:
    assert UITarsAdapter().parse(text, SCREEN).actions == expected


def test_thought_stops_at_the_action_line() -> None:
    parsed = UITarsAdapter().parse("Thought: I see Action: items\nAction: wait()", SCREEN)
    assert parsed.thought == "I see Action: items"
    assert UITarsAdapter().parse("Reflection: r\nAction_Summary: s\nAction: wait()", SCREEN).thought == "s"


def test_mobile_platform_reads_touch_actions() -> None:
    mobile = UITarsAdapter(platform="mobile")
    text = "Action: click(start_box='(1,2)')\n\nlong_press(start_box='(3,4)')\n\npress_home()\n\npress_back()"
    assert mobile.parse(text, SCREEN).actions == [
        ua.Tap(ua.Point(1, 2)),
        ua.LongPress(ua.Point(3, 4)),
        ua.SystemButton("home"),
        ua.SystemButton("back"),
    ]
    assert mobile.parse("Action: drag(start_box='(1,2)', end_box='(3,4)')", SCREEN).actions == [
        ua.Swipe(ua.Point(1, 2), ua.Point(3, 4))
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Action: foo(x='1')", "unknown action 'foo' in \"foo(x='1')\"; expected one of click, "),
        ("click(start_box='(1,2)')", "no 'Action:' line"),
        ("Action: click()", "click needs start_box="),
        ("Action: type()", "type needs content="),
        ("Action: click(start_box='(1,2,3)')", "is not 2 or 4 numbers"),
        ("Action: click(start_box='(1001,2)')", "outside the relative range"),
        ("Action: click(start_box=(1,2))", "must be a quoted string"),
        ("Action: click('(1,2)')", "positional arguments"),
        ("Action: click(start_box='(1,2)', button='left')", "click takes start_box, not button"),
        ("Action: scroll(direction='sideways')", "scroll direction 'sideways'"),
        ("Action: open_app(app_name='  ')", "name the app"),
        ("Action: hotkey(key='ctrl ctrl')", "appears more than once"),
        ("Action: hotkey(key='hyper')", "unknown key"),
        ('Action: {"action": "test"}', "is not a call"),
    ],
)
def test_unreadable_outputs_say_what_was_wrong(text: str, message: str) -> None:
    with pytest.raises(AdapterParseError) as caught:
        UITarsAdapter().parse(text, SCREEN)
    assert message in str(caught.value)
    assert str(caught.value).startswith("ui-tars: ")
    assert caught.value.raw == text


def test_non_text_output_is_refused() -> None:
    with pytest.raises(AdapterParseError, match="expected the model's text"):
        UITars15Adapter().parse({"action": "click"}, SCREEN)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), st.text().map(lambda t: "Thought: x\nAction: " + t)))
def test_garbage_never_crashes(text: str) -> None:
    for adapter in (UITarsAdapter(), UITars15Adapter(), UITarsAdapter(platform="mobile")):
        try:
            parsed = adapter.parse(text, SCREEN)
        except AdapterParseError:
            continue
        assert all(isinstance(a, tuple(ua.ACTIONS.values())) for a in parsed.actions)


# -- round trips ---------------------------------------------------------------------------------

points = st.builds(ua.Point, st.floats(0, 1000), st.floats(0, 1000))
keys = st.lists(st.sampled_from(["ctrl", "alt", "shift", "a", "c", "enter", "f5", "pageup", "left", ","]), min_size=1, max_size=3, unique=True)  # fmt: skip
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1).filter(
    lambda t: not t.endswith("\n") and not t.endswith("\\n")
)
DESKTOP: dict[str, st.SearchStrategy[ua.Action]] = {
    "click": st.one_of(
        st.builds(ua.Click, points, st.just("left"), st.sampled_from([1, 2])),
        st.builds(ua.Click, points, st.just("right")),
    ),
    "mouse_move": st.builds(ua.MouseMove, points),
    "drag": st.builds(ua.Drag, points, points),
    "scroll": st.builds(ua.Scroll, st.sampled_from(ua.SCROLL_DIRECTIONS), st.just(SCROLL_CLICKS), st.none() | points),
    "type": st.builds(ua.TypeText, texts, st.booleans()),
    "key": st.builds(ua.KeyPress, keys.map(tuple)),
    "key_down": st.builds(ua.KeyDown, st.sampled_from(["shift", "ctrl", "a"])),
    "key_up": st.builds(ua.KeyUp, st.sampled_from(["shift", "ctrl", "a"])),
    "wait": st.just(ua.Wait(WAIT_SECONDS)),
    "done": st.builds(ua.Done, st.none() | texts),
    "fail": st.just(ua.Fail(CALL_USER_REASON)),
}
MOBILE: dict[str, st.SearchStrategy[ua.Action]] = {
    "tap": st.builds(ua.Tap, points),
    "long_press": st.builds(ua.LongPress, points),
    "swipe": st.builds(ua.Swipe, points, points),
    "system_button": st.sampled_from([ua.SystemButton("home"), ua.SystemButton("back")]),
    "open_app": st.builds(ua.OpenApp, texts.filter(lambda t: t == t.strip())),
}


def test_strategies_cover_exactly_what_the_adapters_express() -> None:
    assert set(DESKTOP) | set(MOBILE) == UITarsAdapter.expresses == UITars15Adapter.expresses


def pixelised(action: ua.Action, frame: tuple[int, int]) -> tuple[str, dict[str, Any]]:
    """The action with each point replaced by the pixel it falls in on ``frame``."""
    fields = {}
    for field in dataclasses.fields(action):
        value = getattr(action, field.name)
        fields[field.name] = ua.to_pixels(value, *frame) if isinstance(value, ua.Point) else value
    return action.kind, fields


def frame_of(adapter: Adapter) -> tuple[int, int]:
    # v1 numbers are thousandths of the image: its frame is a 1000 x 1000 grid whatever the screen.
    return (1000, 1000) if isinstance(adapter, UITarsAdapter) else adapter.model_size(*SCREEN)


@pytest.mark.parametrize("family", [UITarsAdapter, UITars15Adapter])
@pytest.mark.parametrize("form", ["box", "point"])
@pytest.mark.parametrize("kind", sorted(DESKTOP) + sorted(MOBILE))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_round_trip(family: type[Adapter], form: str, kind: str, data: st.DataObject) -> None:
    platform = "mobile" if kind in MOBILE else "desktop"
    adapter = family(action_form=form, platform=platform)
    actions = data.draw(st.lists((MOBILE | DESKTOP)[kind], min_size=1, max_size=3))
    thought = data.draw(st.none() | st.sampled_from(["Click it.", "点击按钮"]))
    text = adapter.format_output(actions, SCREEN, thought)
    parsed = adapter.parse(text, SCREEN)
    frame = frame_of(adapter)
    assert [pixelised(a, frame) for a in parsed.actions] == [pixelised(a, frame) for a in actions]
    assert parsed.thought == thought


def test_format_output_writes_the_official_forms() -> None:
    v1, v15 = UITarsAdapter(), UITars15Adapter(action_form="point")
    click = ua.Click(ua.Point(500, 250))
    assert (
        v1.format_output([click], SCREEN, "Go")
        == "Thought: Go\nAction: click(start_box='<|box_start|>(500,250)<|box_end|>')"
    )
    assert v15.format_output([click], SCREEN) == "Action: click(point='<point>966 273</point>')"
    drag = ua.Drag(ua.Point(0, 0), ua.Point(1000, 1000))
    assert v15.format_output([drag], SCREEN) == (
        "Action: drag(start_point='<point>0 0</point>', end_point='<point>1931 1091</point>')"
    )
    assert v1.format_output([ua.TypeText("a'b", press_enter=True)], SCREEN) == "Action: type(content='a\\'b\\n')"
    assert (
        v1.format_output([ua.KeyPress(("ctrl", "c")), ua.Wait(2)], SCREEN) == "Action: hotkey(key='ctrl c')\n\nwait()"
    )


@pytest.mark.parametrize(
    "action",
    [ua.Click(None), ua.Click(ua.Point(1, 1), "middle"), ua.Click(ua.Point(1, 1), clicks=3), ua.Screenshot(),
     ua.HoldKey(("a",), 1.0), ua.Drag(None, ua.Point(1, 1)), ua.SystemButton("power"), ua.Pinch(ua.Point(1, 1), 2.0)],
)  # fmt: skip
def test_what_ui_tars_cannot_write_is_an_action_error(action: ua.Action) -> None:
    with pytest.raises(ActionError, match="ui-tars"):
        UITarsAdapter().format_output([action], SCREEN)


# -- prompts -------------------------------------------------------------------------------------


def shot(size: tuple[int, int] = SCREEN) -> Image.Image:
    return Image.new("RGB", size, (200, 30, 30))


def test_render_uses_the_official_template_with_the_instruction() -> None:
    adapter = UITars15Adapter()
    history = [Turn(shot(), (ua.Click(ua.Point(1, 1)),), "Thought: a\nAction: click(start_box='(2,1)')")]
    prompt = adapter.render("Open the settings", history, shot())
    roles = [m["role"] for m in prompt.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert prompt.messages[0]["content"] == [{"type": "text", "text": "You are a helpful assistant."}]
    opening = prompt.messages[1]["content"][0]["text"]
    assert opening.startswith(
        "You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform"
        " the next action to complete the task.\n\n## Output Format\n```\nThought: ...\nAction: ...\n```\n\n"
        "## Action Space\n\nclick(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    )
    assert opening.endswith("- Use English in `Thought` part.\n- Write a small plan and finally summarize your next"
                            " action (with its target element) in one sentence in `Thought` part.\n\n"
                            "## User Instruction\nOpen the settings\n")  # fmt: skip
    assert "If you want to submit your input, use \\n at the end of content. \n" in opening
    assert prompt.messages[1]["content"][1] == {"type": "image", "index": 0}
    assert prompt.messages[2]["content"][0]["text"] == history[0].output
    assert len(prompt.images) == 2
    assert all(image.size == FRAME for image in prompt.images)


def test_render_point_and_mobile_templates() -> None:
    text = UITarsAdapter(action_form="point", platform="mobile", language="Chinese").render("t", [], shot()).messages
    opening = text[1]["content"][0]["text"]
    assert "long_press(point='<point>x1 y1</point>')\n" in opening
    assert "press_home()\npress_back()\n" in opening
    assert "open_app(app_name='')\n" in opening
    assert "- Use Chinese in `Thought` part." in opening
    desktop = UITars15Adapter(action_form="point").render("t", [], shot()).messages[1]["content"][0]["text"]
    assert "hotkey(key='ctrl c') # Split keys with a space and use lowercase." in desktop


def test_render_history_policy_summarises_old_turns() -> None:
    adapter = UITarsAdapter(history=HistoryPolicy(last_n=1, max_images=2))
    turns = [Turn(shot(), (ua.Click(ua.Point(k, k)),)) for k in range(3)]
    prompt = adapter.render("t", turns, shot())
    assert [m["role"] for m in prompt.messages] == ["system", "user", "assistant", "user"]
    assert "Previous actions:\nStep 1: click(" in prompt.messages[1]["content"][0]["text"]
    assert len(prompt.images) == 2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"platform": "tv"}, "platform 'tv'"),
        ({"action_form": "xml"}, "action_form 'xml'"),
        ({"language": " "}, "language must be"),
        ({"min_pixels": "many"}, "min_pixels must be"),
        ({"max_pixels": 0}, "max_pixels must be"),
        ({"min_pixels": 100, "max_pixels": 10}, "min_pixels 100 is above max_pixels 10"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    for family in (UITarsAdapter, UITars15Adapter):
        with pytest.raises(ValueError, match=message):
            family(**options)


def test_options_from_the_command_line_are_text() -> None:
    assert UITars15Adapter(min_pixels="3136", max_pixels="1000000").model_size(*SCREEN) != FRAME
