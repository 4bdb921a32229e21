"""Round trips, fuzzing, options and prompts of the Qwen-VL adapters."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from cua_adapters_qwen import Qwen3VLAdapter, Qwen25VLAdapter, QwenToolCallAdapter
from cua_core.actions import (
    SYSTEM_BUTTONS,
    Action,
    Click,
    Done,
    Drag,
    Fail,
    HoldKey,
    KeyPress,
    LongPress,
    MouseMove,
    OpenApp,
    Point,
    Scroll,
    Swipe,
    SystemButton,
    Tap,
    TypeText,
    Wait,
    to_pixels,
)
from cua_core.errors import ActionError
from cua_data.adapters import AdapterParseError, HistoryPolicy, Turn
from cua_data.registry import adapters, plugin_manager

SCREENS = st.sampled_from([(1280, 800), (1920, 1080), (1080, 2400), (720, 1280), (333, 777)])
coords = st.floats(0, 1000, allow_nan=False)
points = st.builds(Point, coords, coords)
durations = st.floats(0.01, 60, allow_nan=False)
keys = st.lists(
    st.sampled_from(["ctrl", "alt", "shift", "a", "enter", "f5", "pagedown", "escape"]),
    min_size=1,
    max_size=3,
    unique=True,
)


def desktop_actions(family: type[QwenToolCallAdapter]) -> st.SearchStrategy[Action]:
    combos = [("left", 1), ("right", 1), ("middle", 1), ("left", 2)] + (
        [("left", 3)] if family is Qwen3VLAdapter else []
    )
    directions = ["up", "down"] + (["left", "right"] if family is Qwen3VLAdapter else [])
    answers = st.one_of(st.none(), st.text()) if family is Qwen3VLAdapter else st.none()
    return st.one_of(
        st.builds(lambda p, c: Click(p, c[0], c[1]), st.one_of(st.none(), points), st.sampled_from(combos)),
        st.builds(MouseMove, points),
        st.builds(Drag, st.one_of(st.none(), points), points),
        st.builds(Scroll, st.sampled_from(directions), st.integers(1, 100), st.one_of(st.none(), points)),
        st.builds(TypeText, st.text(), st.booleans()),
        st.builds(lambda k: KeyPress(tuple(k)), keys),
        st.builds(Wait, st.floats(0, 60, allow_nan=False)),
        st.builds(Done, answers),
        st.just(Fail()),
    )


def mobile_actions() -> st.SearchStrategy[Action]:
    return st.one_of(
        st.builds(Tap, points),
        st.builds(LongPress, points, durations),
        st.builds(Swipe, points, points),
        st.builds(TypeText, st.text(), st.booleans()),
        st.builds(SystemButton, st.sampled_from(SYSTEM_BUTTONS)),
        st.builds(OpenApp, st.text(min_size=1).filter(lambda t: t == t.strip() and t)),
        st.builds(Wait, st.floats(0, 60, allow_nan=False)),
        st.builds(Done, st.one_of(st.none(), st.text())),
        st.just(Fail()),
    )


def in_frame(action: Action, adapter: QwenToolCallAdapter, size: tuple[int, int]) -> tuple[object, ...]:
    """The action with every point replaced by the model-frame cell it falls in (what survives writing)."""
    frame = adapter.model_size(*size) if isinstance(adapter, Qwen25VLAdapter) else (1000, 1000)
    values = [getattr(action, field.name) for field in dataclasses.fields(action)]  # type: ignore[arg-type]
    return (action.kind, *(to_pixels(v, *frame) if isinstance(v, Point) else v for v in values))


@pytest.mark.parametrize("family", [Qwen25VLAdapter, Qwen3VLAdapter])
@settings(max_examples=300, deadline=None)
@given(data=st.data(), size=SCREENS)
def test_desktop_round_trip(family: type[QwenToolCallAdapter], data: st.DataObject, size: tuple[int, int]) -> None:
    adapter = family()
    action = data.draw(desktop_actions(family))
    text = adapter.format_output([action], size)
    parsed = adapter.parse(text, size)
    assert [in_frame(a, adapter, size) for a in parsed.actions] == [in_frame(action, adapter, size)], text


@pytest.mark.parametrize("family", [Qwen25VLAdapter, Qwen3VLAdapter])
@settings(max_examples=200, deadline=None)
@given(data=st.data(), size=SCREENS)
def test_mobile_round_trip(family: type[QwenToolCallAdapter], data: st.DataObject, size: tuple[int, int]) -> None:
    adapter = family(platform="mobile")
    action = data.draw(mobile_actions())
    text = adapter.format_output([action], size)
    assert '"name": "mobile_use"' in text
    parsed = adapter.parse(text, size)
    assert [in_frame(a, adapter, size) for a in parsed.actions] == [in_frame(action, adapter, size)], text


@pytest.mark.parametrize("family", [Qwen25VLAdapter, Qwen3VLAdapter])
def test_every_expressed_kind_is_covered_by_the_round_trip(family: type[QwenToolCallAdapter]) -> None:
    covered = {"click", "mouse_move", "drag", "scroll", "type", "key", "wait", "done", "fail"}
    assert family.expresses == covered


@pytest.mark.parametrize("family", [Qwen25VLAdapter, Qwen3VLAdapter])
@settings(max_examples=500, deadline=None)
@given(text=st.one_of(st.text(), st.builds(lambda t: f"<tool_call>\n{t}\n</tool_call>", st.text())))
def test_parse_never_crashes_on_garbage(family: type[QwenToolCallAdapter], text: str) -> None:
    try:
        parsed = family().parse(text, (1280, 800))
    except AdapterParseError:
        return
    assert parsed.actions


@pytest.mark.parametrize("family", [Qwen25VLAdapter, Qwen3VLAdapter])
@settings(max_examples=300, deadline=None)
@given(arguments=st.dictionaries(
    st.sampled_from(["action", "coordinate", "coordinate2", "keys", "text", "pixels", "time", "status", "button"]),
    st.one_of(st.sampled_from(["left_click", "scroll", "key", "click", "swipe", "wait", "terminate", "answer"]),
              st.integers(), st.floats(), st.lists(st.integers(-5, 5000), max_size=3), st.text(max_size=5), st.none()),
))  # fmt: skip
def test_parse_never_crashes_on_odd_arguments(family: type[QwenToolCallAdapter], arguments: dict[str, object]) -> None:
    for tool in ("computer_use", "mobile_use"):
        text = "<tool_call>\n" + json.dumps({"name": tool, "arguments": arguments}) + "\n</tool_call>"
        with contextlib.suppress(AdapterParseError):
            family().parse(text, (1280, 800))


def test_several_blocks_are_several_actions_in_order() -> None:
    adapter = Qwen25VLAdapter()
    size = (1280, 800)  # model frame 1288x812
    text = (
        "I will select the word, copy it and finish.\n"
        '<tool_call>\n{"name": "computer_use", "arguments": {"action": "double_click", "coordinate": [100, 200]}}\n</tool_call>\n'
        '<tool_call>\n{"name": "computer_use", "arguments": {"action": "key", "keys": ["ctrl", "c"]}}\n</tool_call>\n'
        '<tool_call>\n{"name": "computer_use", "arguments": {"action": "scroll", "pixels": -5}}\n</tool_call>\n'
        '<tool_call>\n{"name": "computer_use", "arguments": {"action": "terminate", "status": "success"}}\n</tool_call>'
    )
    parsed = adapter.parse(text, size)
    assert parsed.thought == "I will select the word, copy it and finish."
    assert parsed.actions == [
        Click(Point(100.5 * 1000 / 1288, 200.5 * 1000 / 812), "left", 2),
        KeyPress(("ctrl", "c")),
        Scroll("down", 5),
        Done(),
    ]


def test_pairs_written_for_one_action_read_back_as_one() -> None:
    adapter = Qwen3VLAdapter()
    drag = Drag(Point(10, 20), Point(300, 400))
    typed = TypeText("hello", press_enter=True)
    text = adapter.format_output([drag, typed, Done("42")], (1280, 800), thought="Drag, type and answer.")
    assert text.startswith("Action: Drag, type and answer.\n<tool_call>\n")
    assert text.count("<tool_call>") == 5  # mouse_move + left_click_drag, type + key enter, answer
    assert adapter.parse(text, (1280, 800)).actions == [drag, typed, Done("42")]
    # A model that answers and then terminates ends once, with its answer.
    closing = (
        text
        + '\n<tool_call>\n{"name": "computer_use", "arguments": {"action": "terminate", "status": "success"}}\n</tool_call>'
    )
    assert adapter.parse(closing, (1280, 800)).actions[-1] == Done("42")


def test_text_with_tool_call_tags_survives() -> None:
    adapter = Qwen25VLAdapter()
    action = TypeText("a </tool_call> b <tool_call> c")
    assert adapter.parse(adapter.format_output([action], (800, 600)), (800, 600)).actions == [action]


def test_key_spellings() -> None:
    adapter = Qwen25VLAdapter()
    for keys in (["ctrl", "c"], ["Control", "C"], "ctrl+c", ["ctrl+c"]):
        call = json.dumps({"name": "computer_use", "arguments": {"action": "key", "keys": keys}})
        text = f"<tool_call>\n{call}\n</tool_call>"
        assert adapter.parse(text, (800, 600)).actions == [KeyPress(("ctrl", "c"))]


@pytest.mark.parametrize(
    ("family", "action"),
    [
        (Qwen25VLAdapter, Click(Point(1, 1), "left", 3)),
        (Qwen25VLAdapter, Scroll("left", 2)),
        (Qwen25VLAdapter, Done("an answer")),
        (Qwen3VLAdapter, Click(Point(1, 1), "right", 2)),
        (Qwen3VLAdapter, Drag(None, Point(1, 1), "right")),
        (Qwen3VLAdapter, HoldKey(("shift",), 1.0)),
        (Qwen3VLAdapter, Tap(Point(1, 1))),
    ],
)
def test_inexpressible_actions_are_refused(family: type[QwenToolCallAdapter], action: Action) -> None:
    with pytest.raises(ActionError, match="has no way to write"):
        family().format_output([action], (800, 600))


def test_coordinates_rules() -> None:
    # Qwen2.5-VL: pixels of the resized frame; the far corner of the frame is the far corner of the screen.
    qwen25 = Qwen25VLAdapter()
    assert qwen25.model_size(1920, 1080) == (1932, 1092)
    assert qwen25.to_model(Point(1000, 1000), (1920, 1080)) == [1931, 1091]
    assert qwen25.to_model(Point(500, 500), (1920, 1080)) == [966, 546]
    # Qwen3-VL: thousandths whatever the screen; the image follows factor 32.
    qwen3 = Qwen3VLAdapter()
    assert qwen3.model_size(1920, 1080) == (1920, 1088)
    assert qwen3.to_model(Point(500.7, 12.2), (1920, 1080)) == [500, 12]
    assert qwen3.from_model(1000, 0, (1920, 1080)) == Point(1000, 0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_pixels": 10}, "min_pixels must be a whole number"),
        ({"max_pixels": "lots"}, "max_pixels must be a whole number"),
        ({"max_pixels": 1.5}, "max_pixels must be a whole number"),
        ({"min_pixels": 200_000, "max_pixels": 100_000}, "above max_pixels"),
        ({"platform": "watch"}, "platform must be one of desktop, mobile"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    for family in (Qwen25VLAdapter, Qwen3VLAdapter):
        with pytest.raises(ValueError, match=message):
            family(**options)  # type: ignore[arg-type]


def test_options_from_the_command_line_and_their_effect() -> None:
    adapter = Qwen25VLAdapter(max_pixels="1003520", history=HistoryPolicy(last_n=1))  # type: ignore[arg-type]
    assert adapter.max_pixels == 1003520
    assert adapter.model_size(1920, 1080) == (1316, 728)
    assert "The screen's resolution is 1316x728." in adapter.system_prompt((1920, 1080))


@pytest.fixture
def only_this_plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # Other families' plugins are not this test's subject; the registry is cached per process.
    monkeypatch.setenv("CUA_DATA_LOAD_PLUGINS", "qwen")
    forget_plugins()
    yield
    forget_plugins()


def forget_plugins() -> None:
    for cached in (plugin_manager, adapters):
        getattr(cached, "cache_clear", lambda: None)()


@pytest.mark.usefixtures("only_this_plugin")
def test_registered() -> None:
    registry = adapters()
    assert registry["qwen2.5-vl"] is Qwen25VLAdapter and registry["qwen3-vl"] is Qwen3VLAdapter


def screenshot(size: tuple[int, int], shade: int) -> Image.Image:
    return Image.new("RGB", size, (shade, shade, shade))


@pytest.mark.parametrize("family", [Qwen25VLAdapter, Qwen3VLAdapter])
def test_render_a_short_history(family: type[QwenToolCallAdapter]) -> None:
    adapter = family(history=HistoryPolicy(last_n=2))
    size = (1280, 800)
    turns = [
        Turn(screenshot(size, 10), (Click(Point(100, 100)),)),
        Turn(screenshot(size, 20), (TypeText("hi"),), output="typed it\n<tool_call>...</tool_call>"),
        Turn(screenshot(size, 30), (KeyPress(("enter",)),)),
    ]
    prompt = adapter.render("Open the file", turns, screenshot(size, 40))
    roles = [m["role"] for m in prompt.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    system = prompt.messages[0]["content"][0]["text"]
    assert "<tools>\n" in system and '"name": "computer_use"' in system
    opening = prompt.messages[1]["content"][0]["text"]
    assert "Open the file" in opening and "Step 1: click" in opening  # the oldest turn, summarised
    assert prompt.messages[2]["content"][0]["text"] == "typed it\n<tool_call>...</tool_call>"  # verbatim
    assert '"keys": ["enter"]' in prompt.messages[4]["content"][0]["text"]  # written by format_output
    assert len(prompt.images) == 3
    assert all(image.size == adapter.model_size(*size) for image in prompt.images)
    images = [part for m in prompt.messages for part in m["content"] if part.get("type") == "image"]
    assert [part["index"] for part in images] == [0, 1, 2]


def test_qwen25_prompt_is_the_cookbooks() -> None:
    adapter = Qwen25VLAdapter(platform="mobile")
    system = adapter.system_prompt((1080, 2400))
    assert system.startswith("You are a helpful assistant.\n\n# Tools\n\nYou may call one or more functions")
    assert (
        '{"type": "function", "function": {"name_for_human": "mobile_use", "name": "mobile_use", "description": "Use a touchscreen'
        in system
    )
    assert "The screen's resolution is 1092x2408." in system
    assert system.endswith('<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>')
    assert adapter.instruction_text("Open Maps", ["Step 1: tap"]) == (
        "The user query: Open Maps\nTask progress (You have done the following operation on the current device): Step 1: tap; "
    )


def test_qwen3_prompt_is_osworlds() -> None:
    adapter = Qwen3VLAdapter()
    system = adapter.system_prompt((1920, 1080))
    assert "* The screen's resolution is 1000x1000." in system
    assert "1) Action: a short imperative describing what to do in the UI." in system
    assert system.endswith("- If finishing, use action=terminate in the tool call.")
    assert adapter.instruction_text("Do it", []).endswith("Instruction: Do it\n\nPrevious actions:\nNone")
