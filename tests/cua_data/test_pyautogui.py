"""The pyautogui reader: what each recorded form means, and what it refuses (never by running it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cua_core.actions import (
    Click,
    Done,
    Drag,
    Fail,
    KeyDown,
    KeyPress,
    KeyUp,
    LongPress,
    MouseDown,
    MouseMove,
    MouseUp,
    OpenApp,
    Point,
    Scroll,
    Swipe,
    SystemButton,
    Tap,
    TypeText,
    Wait,
    action_from_dict,
    action_to_dict,
    from_pixels,
)
from cua_data.converters.pyautogui import CodeContext, parse_code

DESKTOP = CodeContext("desktop")
MOBILE = CodeContext("mobile")
BROWSER = CodeContext("browser")
PIXELS = CodeContext("desktop", relative=False, size=(1920, 1080))
SCALECUA = CodeContext("desktop", scroll_up_positive=False)

GOOD = [
    ("pyautogui.click(x=0.8018, y=0.6183)", DESKTOP, [Click(Point(801.8, 618.3))], None),
    ("pyautogui.click(x=0.8018, y=0.6183)", MOBILE, [Tap(Point(801.8, 618.3))], None),
    ("pyautogui.click(100, 200)", PIXELS, [Click(from_pixels(100, 200, 1920, 1080))], None),
    ("pyautogui.click((0.5, 0.25))", DESKTOP, [Click(Point(500, 250))], None),
    ("pyautogui.click()", DESKTOP, [Click()], None),
    ("pyautogui.click(x=0.5, y=0.5, button='right')", DESKTOP, [Click(Point(500, 500), "right")], None),
    ("pyautogui.click(x=1, y=0)", DESKTOP, [Click(Point(1000, 0))], None),
    ("pyautogui.doubleClick(x=0.1, y=0.2)", DESKTOP, [Click(Point(100, 200), clicks=2)], None),
    ("pyautogui.doubleClick(x=0.1, y=0.2)", MOBILE, [Tap(Point(100, 200), 2)], None),
    ("pyautogui.tripleClick(x=0.1, y=0.2)", DESKTOP, [Click(Point(100, 200), clicks=3)], None),
    ("pyautogui.rightClick(x=0.3, y=0.4)", DESKTOP, [Click(Point(300, 400), "right")], None),
    ("rightClick(x=0.3, y=0.4)", MOBILE, [LongPress(Point(300, 400))], None),
    ("pyautogui.middleClick(0.3, 0.4)", DESKTOP, [Click(Point(300, 400), "middle")], None),
    (
        "pyautogui.moveTo(x=0.4546, y=0.2682)\npyautogui.dragTo(x=0.4107, y=0.2773, button='left')",
        DESKTOP,
        [MouseMove(Point(454.6, 268.2)), Drag(None, Point(410.7, 277.3))],
        None,
    ),
    (
        "pyautogui.mouseDown(button='right'); pyautogui.mouseUp(button='right')",
        DESKTOP,
        [MouseDown("right"), MouseUp("right")],
        None,
    ),
    ("pyautogui.scroll(-3)", DESKTOP, [Scroll("down", 3)], None),
    ("pyautogui.scroll(5, x=0.5, y=0.5)", DESKTOP, [Scroll("up", 5, Point(500, 500))], None),
    ("scroll(clicks=-4, x=0.5, y=0.5)", SCALECUA, [Scroll("up", 4, Point(500, 500))], None),
    ("pyautogui.hscroll(2)", DESKTOP, [Scroll("right", 2)], None),
    ("pyautogui.vscroll(-1)", DESKTOP, [Scroll("down", 1)], None),
    ("pyautogui.scroll(page=-0.1)", MOBILE, [Swipe(Point(500, 750), Point(500, 250))], None),
    ("pyautogui.write(message='george orwell')", DESKTOP, [TypeText("george orwell")], None),
    ("pyautogui.typewrite('hi')", MOBILE, [TypeText("hi")], None),
    ("pyautogui.typewrite(['a', 'enter'])", DESKTOP, [KeyPress(("a",)), KeyPress(("enter",))], None),
    ("pyautogui.press('enter', presses=2)", DESKTOP, [KeyPress(("enter",)), KeyPress(("enter",))], None),
    ("pyautogui.press(keys=['tab', 'esc'])", DESKTOP, [KeyPress(("tab",)), KeyPress(("escape",))], None),
    ("pyautogui.press('back')", MOBILE, [SystemButton("back")], None),
    ("pyautogui.hotkey('ctrl', 'c')", DESKTOP, [KeyPress(("ctrl", "c"))], None),
    ("pyautogui.hotkey(['ctrl', 'shift', 't'])", DESKTOP, [KeyPress(("ctrl", "shift", "t"))], None),
    ("pyautogui.hotkey(keys=['alt', 'f4'])", DESKTOP, [KeyPress(("alt", "f4"))], None),
    ("key('ctrl+s')", DESKTOP, [KeyPress(("ctrl", "s"))], None),
    ("pyautogui.keyDown('shift')\npyautogui.keyUp('shift')", DESKTOP, [KeyDown("shift"), KeyUp("shift")], None),
    (
        "import pyautogui; import time; pyautogui.click(960, 540); time.sleep(0.5)",
        PIXELS,
        [Click(from_pixels(960, 540, 1920, 1080)), Wait(0.5)],
        None,
    ),
    ("computer.wait(2)", DESKTOP, [Wait(2)], None),
    ("wait(seconds=3)", DESKTOP, [Wait(3)], None),
    ("computer.terminate(status='success')", DESKTOP, [], Done()),
    ("computer.terminate(status='failure', reason='no such filter')", DESKTOP, [], Fail("no such filter")),
    ("terminate(status='success', answer='42')", DESKTOP, [], Done("42")),
    ("answer('The price is $5')", DESKTOP, [], Done("The price is $5")),
    ("pyautogui.click(x=0.2, y=0.2)\ncomputer.terminate(status='success')", DESKTOP, [Click(Point(200, 200))], Done()),
    ("mobile.home()", MOBILE, [SystemButton("home")], None),
    ("mobile.back()", MOBILE, [SystemButton("back")], None),
    (
        "mobile.swipe(from_coord=[0.5, 0.8], to_coord=[0.5, 0.2])",
        MOBILE,
        [Swipe(Point(500, 800), Point(500, 200))],
        None,
    ),
    ("mobile.long_press(x=0.2, y=0.3)", MOBILE, [LongPress(Point(200, 300))], None),
    ("mobile.wait(1)", MOBILE, [Wait(1)], None),
    ("mobile.terminate(status='success')", MOBILE, [], Done()),
    ("swipe(direction='up', amount=0.7)", BROWSER, [Scroll("down", 3)], None),
    ("swipe(direction='up', amount=0.25)", MOBILE, [Swipe(Point(500, 625), Point(500, 375))], None),
    ("pass", DESKTOP, [], None),
]


@pytest.mark.parametrize(
    ("code", "ctx", "actions", "end"), GOOD, ids=[f"{i}:{row[0][:40]}" for i, row in enumerate(GOOD)]
)
def test_good_forms(code: str, ctx: CodeContext, actions: list[object], end: object) -> None:
    parsed = parse_code(code, ctx)
    assert parsed.unmapped == []
    assert parsed.actions == actions
    assert parsed.end == end


BAD = [
    ("__import__('os').system('rm -rf /')", DESKTOP, ["__import__('os').system"]),
    ("pyautogui.click(x=eval('1'))", DESKTOP, ["pyautogui.click: non-literal argument"]),
    ("pyautogui.click(x=__import__('os').getpid(), y=1)", DESKTOP, ["pyautogui.click: non-literal argument"]),
    ("pyautogui.click(**{'x': 0.1, 'y': 0.1})", DESKTOP, ["pyautogui.click: non-literal argument"]),
    ("pyautogui.locateOnScreen('button.png')", DESKTOP, ["pyautogui.locateOnScreen"]),
    ("os.system('ls')", DESKTOP, ["os.system"]),
    ("x = 5", DESKTOP, ["python assign"]),
    ("for i in range(3):\n    pyautogui.click()", DESKTOP, ["python for"]),
    ("import os", DESKTOP, ["import os"]),
    ("from os import system", DESKTOP, ["import os"]),
    ("pyautogui.click(", DESKTOP, ["syntax error"]),
    ("pyautogui.click(x=1.5, y=0.5)", DESKTOP, ["pyautogui.click: coordinate outside the screen"]),
    ("pyautogui.click(2000, 10)", PIXELS, ["pyautogui.click: coordinate outside the screen"]),
    ("pyautogui.click(x=0.5, y=0.5, foo=1)", DESKTOP, ["pyautogui.click: invalid arguments"]),
    ("pyautogui.moveTo(x=0.5, y=0.5)", MOBILE, ["pyautogui.moveTo: not on mobile"]),
    ("mobile.home()", DESKTOP, ["mobile.home: not on desktop"]),
    ("mobile.open_app(app_name='Settings')", CodeContext("mobile", lite=True), ["mobile.open_app"]),
    ("mobile.open_app(app_name='  ')", MOBILE, ["mobile.open_app: invalid arguments"]),
    ("pyautogui.scroll()", DESKTOP, ["pyautogui.scroll: no direction"]),
    ("pyautogui.hotkey('ctrl+c')", DESKTOP, ["pyautogui.hotkey: invalid arguments"]),
    ("pyautogui.press('a', presses=1000)", DESKTOP, ["pyautogui.press: invalid arguments"]),
    ("computer.terminate(status='maybe')", DESKTOP, ["computer.terminate: invalid arguments"]),
    ("pyautogui.tripleClick(x=0.5, y=0.5)", MOBILE, ["pyautogui.tripleClick: not on mobile"]),
    ("computer.terminate(status='success')\npyautogui.click(x=0.5, y=0.5)", DESKTOP, ["action after terminate"]),
]


@pytest.mark.parametrize(("code", "ctx", "forms"), BAD, ids=[f"{i}:{row[0][:40]}" for i, row in enumerate(BAD)])
def test_bad_forms_are_reported_by_form(code: str, ctx: CodeContext, forms: list[str]) -> None:
    parsed = parse_code(code, ctx)
    assert [miss.form for miss in parsed.unmapped] == forms
    assert parsed.actions == []
    assert all(miss.detail for miss in parsed.unmapped)


def test_open_app_is_an_action_for_a_model_and_unmapped_for_a_lite_sample() -> None:
    """A model that writes open_app opens the app; a LiteSample row cannot hold it (CUA-Lite's mobile tool
    has no launch), so a converter sees it unmapped, by its form, with why."""
    code = "mobile.open_app(app_name='Settings')"
    assert parse_code(code, MOBILE).actions == [OpenApp("Settings")]
    [miss] = parse_code(code, CodeContext("mobile", lite=True)).unmapped
    assert "no action that launches an app" in miss.detail


def test_a_bad_statement_does_not_hide_the_good_ones() -> None:
    parsed = parse_code("pyautogui.click(x=0.1, y=0.1)\npyautogui.locateOnScreen('x.png')", DESKTOP)
    assert parsed.actions == [Click(Point(100, 100))]
    assert [miss.form for miss in parsed.unmapped] == ["pyautogui.locateOnScreen"]


def test_code_is_never_executed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for code in (
        "__import__('pathlib').Path('PWNED').touch()",
        "open('PWNED', 'w')",
        "pyautogui.click(x=__import__('pathlib').Path('PWNED').touch(), y=0)",
        "pyautogui.write(message=open('PWNED', 'w').name)",
    ):
        parsed = parse_code(code, DESKTOP)
        assert parsed.actions == [] and parsed.unmapped
    assert not (tmp_path / "PWNED").exists()


@given(st.text(max_size=200))
def test_any_text_parses_without_raising(text: str) -> None:
    parsed = parse_code(text, DESKTOP)
    # Whatever it made is valid: every action survives its own wire form, an end is Done or Fail,
    # and what it could not map says what (a form and the statement).
    assert all(action_from_dict(action_to_dict(a)) == a for a in parsed.actions)
    assert parsed.end is None or isinstance(parsed.end, Done | Fail)
    assert all(u.form and isinstance(u.detail, str) for u in parsed.unmapped)
