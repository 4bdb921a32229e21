"""The ``aguvis`` adapter against real Aguvis records, OSWorld's reading rules, round trips and prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from support.model_outputs import model_outputs

from cua_adapters_opencua import AguvisAdapter
from cua_core import actions as ua
from cua_core.errors import ActionError
from cua_data.adapters import AdapterParseError, HistoryPolicy, Turn
from cua_data.registry import adapters

SCREEN = (1920, 1080)
FRAME = (1932, 1092)  # Qwen2-VL's smart_resize defaults (min 3136, max 12845056) on 1920x1080
points = st.builds(ua.Point, st.floats(0, 1000), st.floats(0, 1000))
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1)


def blocks(shared_fixtures: Path) -> list[str]:
    return model_outputs(shared_fixtures, "aguvis.txt")


def test_registered() -> None:
    assert adapters()["aguvis"] is AguvisAdapter
    assert AguvisAdapter().model_size(*SCREEN) == FRAME


def test_fixture_blocks(shared_fixtures: Path) -> None:
    stage2, stage1 = blocks(shared_fixtures)
    # Block 1 is a phone step (stage 2): its low-level instruction, then mobile.back().
    parsed = AguvisAdapter(platform="mobile").parse(stage2, SCREEN)
    assert parsed.actions == [ua.SystemButton("back")]
    assert parsed.thought == "Go back to the previous screen"
    with pytest.raises(AdapterParseError, match="back is a phone gesture"):
        AguvisAdapter().parse(stage2, SCREEN)
    # Block 2 is a grounding answer: fractions of the screen, x 0.8018 and y 0.6183.
    assert AguvisAdapter().parse(stage1, SCREEN).actions == [ua.Click(ua.Point(0.8018 * 1000, 0.6183 * 1000))]
    assert AguvisAdapter(platform="mobile").parse(stage1, SCREEN).actions == [
        ua.Tap(ua.Point(0.8018 * 1000, 0.6183 * 1000))
    ]


@pytest.mark.parametrize(
    ("text", "expected", "thought"),
    [
        ("Click OK\nassistantos\npyautogui.click(x=0.5, y=0.25)", [ua.Click(ua.Point(500, 250))], "Click OK"),
        (
            "<|im_start|>assistant<|recipient|>all\nAction: Click OK<|im_end|>\n"
            "<|im_start|>assistant<|recipient|>os\npyautogui.click(x=0.5, y=0.25)<|diff_marker|>",
            [ua.Click(ua.Point(500, 250))],
            "Click OK",
        ),
        ("WAIT", [ua.Wait()], None),
        ("done", [ua.Done()], None),
        ("FAIL because", [ua.Fail()], None),
        (
            "Action: Type and finish\npyautogui.write(message='hi')\nDONE",
            [ua.TypeText("hi"), ua.Done()],
            "Type and finish",
        ),
        (
            "pyautogui.moveTo(x=0.1, y=0.1)\npyautogui.dragTo(x=0.2, y=0.2, button='left')",
            [ua.Drag(ua.Point(100, 100), ua.Point(200, 200))],
            None,
        ),
    ],
)
def test_osworld_reading_rules(text: str, expected: list[ua.Action], thought: str | None) -> None:
    parsed = AguvisAdapter().parse(text, SCREEN)
    assert parsed.actions == expected
    assert parsed.thought == thought


def test_mobile_code() -> None:
    text = "Action: Scroll the list\nmobile.swipe(from_coord=[0.5, 0.8], to_coord=[0.5, 0.2])\nmobile.wait(seconds=2)"
    assert AguvisAdapter(platform="mobile").parse(text, SCREEN).actions == [
        ua.Swipe(ua.Point(500, 800), ua.Point(500, 200)),
        ua.Wait(2),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"action": "test"}', "no code"),
        ("Action: click the button", "no code"),
        ("pyautogui.click(x=5, y=0.5)", "outside the relative range"),
        ("mobile.open_app(app_name='')", "mobile.open_app"),
        ("pyautogui.click(x=0.1, y=0.1)\ncomputer.terminate(status='success')\nDONE", "ends the task twice"),
    ],
)
def test_unreadable_outputs_say_what_was_wrong(text: str, message: str) -> None:
    with pytest.raises(AdapterParseError) as caught:
        AguvisAdapter(platform="mobile" if "mobile" in text else "desktop").parse(text, SCREEN)
    assert message in str(caught.value)
    assert str(caught.value).startswith("aguvis: ")


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), st.text().map(lambda t: "Action: x\nassistantos\npyautogui." + t)))
def test_garbage_never_crashes(text: str) -> None:
    for adapter in (AguvisAdapter(), AguvisAdapter(platform="mobile")):
        try:
            parsed = adapter.parse(text, SCREEN)
        except AdapterParseError:
            continue  # the one failure parse may raise
        else:
            assert parsed.actions and parsed.raw == text


buttons = st.sampled_from(ua.MOUSE_BUTTONS)
DESKTOP: dict[str, st.SearchStrategy[ua.Action]] = {
    "click": st.builds(ua.Click, st.none() | points, buttons, st.integers(1, 3)),
    "mouse_move": st.builds(ua.MouseMove, points),
    "mouse_down": st.builds(ua.MouseDown, buttons, st.none() | points),
    "mouse_up": st.builds(ua.MouseUp, buttons, st.none() | points),
    "drag": st.builds(ua.Drag, st.none() | points, points, buttons),
    "scroll": st.builds(ua.Scroll, st.sampled_from(ua.SCROLL_DIRECTIONS), st.integers(1, 100), st.none() | points),
    "type": st.builds(ua.TypeText, texts, st.booleans()),
    "key": st.builds(
        ua.KeyPress,
        st.lists(st.sampled_from(["ctrl", "alt", "x", "tab"]), min_size=1, max_size=3, unique=True).map(tuple),
    ),
    "key_down": st.builds(ua.KeyDown, st.sampled_from(["shift", "a"])),
    "key_up": st.builds(ua.KeyUp, st.sampled_from(["shift", "a"])),
    # WAIT, DONE and FAIL carry nothing: a wait is the unified default, an ending has no answer or reason.
    "wait": st.just(ua.Wait()),
    "done": st.just(ua.Done()),
    "fail": st.just(ua.Fail()),
}
MOBILE: dict[str, st.SearchStrategy[ua.Action]] = {
    "tap": st.builds(ua.Tap, points, st.integers(1, 2)),
    "long_press": st.builds(ua.LongPress, points),
    "swipe": st.builds(ua.Swipe, points, points),
    "system_button": st.builds(ua.SystemButton, st.sampled_from(["home", "back", "recent", "menu", "enter"])),
}


def test_strategies_cover_what_aguvis_expresses() -> None:
    assert set(DESKTOP) | set(MOBILE) == AguvisAdapter.expresses


@pytest.mark.parametrize("kind", sorted(DESKTOP) + sorted(MOBILE))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_round_trip(kind: str, data: st.DataObject, pixelised: Any) -> None:
    adapter = AguvisAdapter(platform="mobile" if kind in MOBILE else "desktop")
    single = kind in ("wait", "done", "fail")  # an answer starting WAIT/DONE/FAIL is that action alone
    actions = data.draw(st.lists((DESKTOP | MOBILE)[kind], min_size=1, max_size=1 if single else 3))
    thought = None if single else data.draw(st.none() | st.just("Open the menu"))
    text = adapter.format_output(actions, SCREEN, thought)
    parsed = adapter.parse(text, SCREEN)
    assert [pixelised(a, FRAME) for a in parsed.actions] == [pixelised(a, FRAME) for a in actions]
    assert parsed.thought == thought


def test_format_output_writes_the_training_form() -> None:
    click = ua.Click(ua.Point(801.8, 618.3))
    # Written as the centre of the frame pixel the point is in (1549, 675 of 1932x1092), to 4 places.
    assert AguvisAdapter().format_output([click], SCREEN, "Click Submit") == (
        "Action: Click Submit\npyautogui.click(x=0.802, y=0.6186)"
    )
    assert AguvisAdapter(platform="mobile").format_output([ua.SystemButton("back")], SCREEN) == "mobile.back()"
    assert AguvisAdapter().format_output([ua.Wait(3)], SCREEN) == "WAIT"


@pytest.mark.parametrize(
    ("platform", "action"),
    [("desktop", ua.Tap(ua.Point(1, 1))), ("desktop", ua.Screenshot()), ("mobile", ua.Scroll("down")),
     ("mobile", ua.SystemButton("power"))],
)  # fmt: skip
def test_what_aguvis_cannot_write_is_an_action_error(platform: str, action: ua.Action) -> None:
    with pytest.raises(ActionError, match="aguvis"):
        AguvisAdapter(platform=platform).format_output([action], SCREEN)


def shot() -> Image.Image:
    return Image.new("RGB", SCREEN, (0, 90, 0))


def test_render_puts_previous_actions_in_the_instruction() -> None:
    turns = [
        Turn(shot(), (ua.Click(ua.Point(1, 1)),), "Action: Open the menu\npyautogui.click(x=0.0, y=0.0)"),
        Turn(shot(), (ua.KeyPress(("enter",)),)),
    ]
    prompt = AguvisAdapter().render("Buy milk", turns, shot())
    assert [m["role"] for m in prompt.messages] == ["system", "user"]
    assert prompt.messages[0]["content"][0]["text"] == (
        "You are a GUI agent. You are given a task and a screenshot of the screen. "
        "You need to perform a series of pyautogui actions to complete the task."
    )
    assert prompt.messages[1]["content"] == [
        {
            "type": "text",
            "text": "Please generate the next move according to the ui screenshot, instruction and previous actions."
            "\n\nInstruction: Buy milk\n\nPrevious actions:\nStep 1: Open the menu\nStep 2: key(keys=['enter'])\n",
        },
        {"type": "image", "index": 0},
    ]
    assert len(prompt.images) == 1 and prompt.images[0].size == FRAME
    first = AguvisAdapter(platform="mobile").render("Buy milk", [], shot())
    assert "Previous actions:\nNone\n" in first.messages[1]["content"][0]["text"]
    assert '- {"name": "mobile.swipe", "description": "Swipe on the screen"' in first.messages[0]["content"][0]["text"]
    full = AguvisAdapter(history=HistoryPolicy()).render("Buy milk", turns, shot())
    assert len(full.images) == 3


@pytest.mark.parametrize(
    ("options", "message"),
    [({"platform": "web"}, "platform 'web'"), ({"max_pixels": "lots"}, "max_pixels must be"),
     ({"min_pixels": 10, "max_pixels": 5}, "above max_pixels")],
)  # fmt: skip
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        AguvisAdapter(**options)
