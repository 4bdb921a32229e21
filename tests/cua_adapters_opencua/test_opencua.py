"""The ``opencua`` adapter against real AgentNet/OpenCUA outputs, its layouts, round trips and prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from support.model_outputs import model_outputs

from cua_adapters_opencua import OpenCUAAdapter
from cua_core import actions as ua
from cua_core.errors import ActionError
from cua_data.adapters import AdapterParseError, HistoryPolicy, Turn
from cua_data.registry import adapters

SCREEN = (1920, 1080)
points = st.builds(ua.Point, st.floats(0, 1000), st.floats(0, 1000))
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1)
# smart_resize(1080, 1920, factor=28, min_pixels=3136, max_pixels=12845056): 39*28 = 1092 by 69*28 = 1932.
FRAME = (1932, 1092)


def px(x: float, y: float) -> ua.Point:
    return ua.Point((x + 0.5) * 1000 / FRAME[0], (y + 0.5) * 1000 / FRAME[1])


def blocks(shared_fixtures: Path) -> list[str]:
    return model_outputs(shared_fixtures, "opencua.txt")


# Block 1 is OpenCUA-7B/32B's own grounding answer (pixels of the smart-resized image); 2-5 are AgentNet
# records, whose coordinates are [0, 1] fractions: the official "auto" rule reads both without being told.
EXPECTED: list[tuple[list[ua.Action], str | None]] = [
    ([ua.Click(px(1443, 343))], None),
    ([ua.Click(ua.Point(0.3271 * 1000, 0.2694 * 1000))], "To achieve the task goal, I've already gone through"),
    ([ua.TypeText("george orwell")], "Type 'george orwell' in the search input field"),
    ([ua.Done()], None),
    ([ua.Drag(ua.Point(0.4546 * 1000, 0.2682 * 1000), ua.Point(0.4107 * 1000, 0.2773 * 1000))], None),
]


def test_registered() -> None:
    assert adapters()["opencua"] is OpenCUAAdapter
    assert OpenCUAAdapter().model_size(*SCREEN) == FRAME


def test_fixture_has_five_blocks(shared_fixtures: Path) -> None:
    assert len(blocks(shared_fixtures)) == len(EXPECTED) == 5


@pytest.mark.parametrize("index", range(len(EXPECTED)))
def test_fixture_blocks_parse_to_the_right_actions(shared_fixtures: Path, index: int) -> None:
    block = blocks(shared_fixtures)[index]
    expected, thought = EXPECTED[index]
    parsed = OpenCUAAdapter().parse(block, SCREEN)
    assert parsed.actions == expected
    if thought is None:
        assert parsed.thought is None
    else:
        assert parsed.thought is not None and parsed.thought.startswith(thought)


def test_forcing_a_frame_changes_the_reading(shared_fixtures: Path) -> None:
    grounding, relative = blocks(shared_fixtures)[0], blocks(shared_fixtures)[1]
    with pytest.raises(AdapterParseError, match="outside the relative range"):
        OpenCUAAdapter(coordinates="relative").parse(grounding, SCREEN)
    assert OpenCUAAdapter(coordinates="absolute").parse(relative, SCREEN).actions == [ua.Click(px(0, 0))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```code\ncomputer.terminate(status='failure')\n```", [ua.Fail()]),
        ("## Action:\nwait\n\n## Code:\n```code\ncomputer.wait()\n```\n", [ua.Wait()]),
        ("```python\ncomputer.triple_click(x=966, y=546)\n```", [ua.Click(px(966, 546), clicks=3)]),
        ("pyautogui.hotkey(['ctrl', 'c'])", [ua.KeyPress(("ctrl", "c"))]),
        ("pyautogui.hotkey('ctrl', 'v')", [ua.KeyPress(("ctrl", "v"))]),
        ("pyautogui.write(message='hi')\npyautogui.press('enter')", [ua.TypeText("hi", press_enter=True)]),
        ("pyautogui.scroll(-3, x=0.5, y=0.5)", [ua.Scroll("down", 3, ua.Point(500, 500))]),
        (
            "pyautogui.click(x=0.5, y=0.5)\npyautogui.click(x=966, y=546)",
            [ua.Click(ua.Point(500, 500)), ua.Click(px(966, 546))],
        ),
        ("pyautogui.moveTo(x=0, y=500)", [ua.MouseMove(px(0, 500))]),  # y > 1: pixels, even with x = 0
        (
            "## Observation:\nA page.\n\n## Thought:\nClick.\n\n## Action:\nClick OK\n\n## Code:\n```python\n"
            "pyautogui.click(x=10, y=20)\ncomputer.terminate(status='success')\n```",
            [ua.Click(px(10, 20)), ua.Done()],
        ),
    ],
)
def test_layouts_and_calls(text: str, expected: list[ua.Action]) -> None:
    assert OpenCUAAdapter().parse(text, SCREEN).actions == expected


def test_thought_is_the_thought_section_else_the_action() -> None:
    l3 = "## Observation:\nA page.\n\n## Thought:\nI click.\n\n## Action:\nClick OK\n\n## Code:\n```python\npyautogui.click()\n```"
    assert OpenCUAAdapter().parse(l3, SCREEN).thought == "I click."
    l1 = "## Action:\nClick OK\n\n## Code:\n```python\npyautogui.click()\n```"
    assert OpenCUAAdapter().parse(l1, SCREEN).thought == "Click OK"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"action": "test"}', "cannot read 'python expr'"),
        ("## Thought:\nhmm\n\n## Action:\nclick", "no code"),
        ("pyautogui.click(x=", "not Python"),
        ("pyautogui.locateOnScreen('a.png')", "pyautogui.locateOnScreen"),
        ("computer.terminate(status='success')\npyautogui.click()", "after the task was terminated"),
        ("pyautogui.click(x=5000, y=10)", "outside the screen"),
        ("import os\nos.system('rm -rf /')", "import os"),
        ("pass", "performs no action"),
    ],
)
def test_unreadable_outputs_say_what_was_wrong(text: str, message: str) -> None:
    with pytest.raises(AdapterParseError) as caught:
        OpenCUAAdapter().parse(text, SCREEN)
    assert message in str(caught.value)
    assert str(caught.value).startswith("opencua: ")


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), st.text().map(lambda t: "## Action:\nx\n\n## Code:\n```python\n" + t + "\n```")))
def test_garbage_never_crashes(text: str) -> None:
    try:
        parsed = OpenCUAAdapter().parse(text, SCREEN)
    except AdapterParseError:
        return  # the one failure parse may raise
    else:
        assert parsed.actions and parsed.raw == text


buttons = st.sampled_from(ua.MOUSE_BUTTONS)
STRATEGIES: dict[str, st.SearchStrategy[ua.Action]] = {
    "click": st.builds(ua.Click, st.none() | points, buttons, st.integers(1, 3)),
    "mouse_move": st.builds(ua.MouseMove, points),
    "mouse_down": st.builds(ua.MouseDown, buttons, st.none() | points),
    "mouse_up": st.builds(ua.MouseUp, buttons, st.none() | points),
    "drag": st.builds(ua.Drag, st.none() | points, points, buttons),
    "scroll": st.builds(ua.Scroll, st.sampled_from(ua.SCROLL_DIRECTIONS), st.integers(1, 100), st.none() | points),
    "type": st.builds(ua.TypeText, texts, st.booleans()),
    "key": st.builds(
        ua.KeyPress,
        st.lists(st.sampled_from(["ctrl", "shift", "a", "enter", "f4", "'"]), min_size=1, max_size=3, unique=True).map(
            tuple
        ),
    ),
    "key_down": st.builds(ua.KeyDown, st.sampled_from(["shift", "a"])),
    "key_up": st.builds(ua.KeyUp, st.sampled_from(["shift", "a"])),
    "wait": st.builds(ua.Wait, st.floats(0, 60)),
    "done": st.builds(ua.Done, st.none() | texts),
    "fail": st.builds(ua.Fail, st.none() | texts),
}


def test_strategies_cover_what_opencua_expresses() -> None:
    assert set(STRATEGIES) == OpenCUAAdapter.expresses


@pytest.mark.parametrize("coordinates", ["absolute", "relative"])
@pytest.mark.parametrize("kind", sorted(STRATEGIES))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_round_trip(coordinates: str, kind: str, data: st.DataObject, pixelised: Any) -> None:
    adapter = OpenCUAAdapter(coordinates=coordinates)
    size = (1920, 1080)
    ending = kind in ("done", "fail")
    actions = data.draw(st.lists(STRATEGIES[kind], min_size=1, max_size=1 if ending else 3))
    thought = data.draw(st.none() | st.just("I will act."))
    text = adapter.format_output(actions, size, thought)
    parsed = adapter.parse(text, size)
    frame = adapter.model_size(*size)
    assert [pixelised(a, frame) for a in parsed.actions] == [pixelised(a, frame) for a in actions]
    if thought:
        assert parsed.thought == thought


def test_format_output_is_an_l2_answer_with_fenced_code() -> None:
    text = OpenCUAAdapter().format_output([ua.Click(px(1443, 343))], SCREEN, "Click it.")
    # No low-level instruction is known for a replayed action: its unified text form stands in.
    assert text == (
        "## Thought:\nClick it.\n\n## Action:\nclick(coordinate=[747.1532091097308, 314.56043956043953])\n\n"
        "## Code:\n```python\npyautogui.click(x=1443, y=343)\n```\n"
    )
    assert (
        OpenCUAAdapter()
        .format_output([ua.Fail()], SCREEN)
        .endswith("```code\ncomputer.terminate(status='failure')\n```\n")
    )


@pytest.mark.parametrize(
    "action", [ua.Screenshot(), ua.HoldKey(("a",), 1.0), ua.Tap(ua.Point(1, 1)), ua.SystemButton("home")]
)
def test_what_opencua_cannot_write_is_an_action_error(action: ua.Action) -> None:
    with pytest.raises(ActionError, match="opencua"):
        OpenCUAAdapter().format_output([action], SCREEN)


def shot() -> Image.Image:
    return Image.new("RGB", SCREEN, (10, 20, 30))


def test_render_follows_the_osworld_layout() -> None:
    turns = [
        Turn(shot(), (ua.Click(px(1, 1)),), f"## Thought:\nt{k}\n\n## Action:\nstep {k}\n\n## Code:\n```python\npyautogui.click(x=1, y=1)\n```")
        for k in range(3)
    ]  # fmt: skip
    prompt = OpenCUAAdapter().render("Find Orwell", turns, shot())
    roles = [m["role"] for m in prompt.messages]
    # Step 1 as text only, steps 2-3 each after their screenshot, then the current screen and the task.
    assert roles == ["system", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert prompt.messages[0]["content"][0]["text"].startswith(
        "You are a GUI agent. You are given a task and a screenshot"
    )
    assert "Thought:\n  - Step by Step Progress Assessment:" in prompt.messages[0]["content"][0]["text"]
    assert prompt.messages[1]["content"] == [{"type": "text", "text": "# Step 1:\n## Action:\nstep 0\n"}]
    assert prompt.messages[3]["content"][0]["text"] == "# Step 2:\n## Action:\nstep 1\n"
    assert prompt.messages[-1]["content"] == [
        {"type": "image", "index": 2},
        {
            "type": "text",
            "text": "# Task Instruction:\nFind Orwell\n\nPlease generate the next move according to the screenshot, "
            "task instruction and previous steps (if provided).\n",
        },
    ]
    assert len(prompt.images) == 3 and all(image.size == FRAME for image in prompt.images)


def test_render_history_text_options() -> None:
    turn = Turn(
        shot(),
        (ua.Click(px(1, 1)),),
        "## Thought:\nwhy\n\n## Action:\nwhat\n\n## Code:\n```python\npyautogui.click(x=1, y=1)\n```",
    )
    thought = OpenCUAAdapter(history_text="thought").render("t", [turn], shot()).messages
    assert thought[2]["content"][0]["text"] == "# Step 1:\n## Thought:\nwhy\n\n## Action:\nwhat\n"
    response = OpenCUAAdapter(history_text="response").render("t", [turn], shot()).messages
    assert response[2]["content"][0]["text"] == "# Step 1:\n" + turn.output
    l1 = OpenCUAAdapter(cot_level="l1", history=HistoryPolicy(last_n=0)).render("t", [turn], shot())
    assert "Thought:" not in l1.messages[0]["content"][0]["text"]
    assert len(l1.images) == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"coordinates": "pixels"}, "coordinates 'pixels'"),
        ({"cot_level": "l4"}, "cot_level 'l4'"),
        ({"history_text": "all"}, "history_text 'all'"),
        ({"max_pixels": "-1"}, "max_pixels must be"),
        ({"min_pixels": True}, "min_pixels must be"),
        ({"min_pixels": 5000, "max_pixels": 4000}, "above max_pixels"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OpenCUAAdapter(**options)
