"""The text-form parser: the forms models write, the mistakes they make, and arbitrary input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cua_core.actions import (
    ACTIONS,
    Action,
    Click,
    CursorPosition,
    Done,
    Drag,
    Fail,
    HoldKey,
    KeyDown,
    KeyPress,
    KeyUp,
    LongPress,
    MouseDown,
    MouseMove,
    MouseUp,
    OpenApp,
    Pinch,
    Point,
    Screenshot,
    Scroll,
    Swipe,
    SystemButton,
    Tap,
    TypeText,
    Wait,
    parse_action,
    parse_actions,
)
from cua_core.errors import ActionError

P = Point(500, 300)

GOOD: list[tuple[str, Action]] = [
    ("click(500, 300)", Click(P)),
    ("click(x=500, y=300, button='right')", Click(P, "right")),
    ('click(x=500, y=300, button="right")', Click(P, "right")),
    ("click(coordinate=[500,300])", Click(P)),
    ("click(coordinate=(500, 300), clicks=2)", Click(P, clicks=2)),
    ("click([500, 300], 'middle', 3)", Click(P, "middle", 3)),
    ("click(500, 300, 'right')", Click(P, "right")),
    ("click()", Click()),
    ("click(button='right')", Click(None, "right")),
    ("click(500.5, 299.25)", Click(Point(500.5, 299.25))),
    ("mouse_move(500, 300)", MouseMove(P)),
    ("mouse_move(x=500, y=300)", MouseMove(P)),
    ("mouse_down()", MouseDown()),
    ("mouse_down('right', 500, 300)", MouseDown("right", P)),
    ("mouse_up(coordinate=[500, 300])", MouseUp("left", P)),
    ("drag([1,2],[3,4])", Drag(Point(1, 2), Point(3, 4))),
    ("drag(1, 2, 3, 4, 'right')", Drag(Point(1, 2), Point(3, 4), "right")),
    ("drag(None, [3, 4])", Drag(None, Point(3, 4))),
    ("drag(start=[1, 2], end=[3, 4])", Drag(Point(1, 2), Point(3, 4))),
    ('scroll("down", 3)', Scroll("down", 3)),
    ('scroll(direction="up", amount=2, coordinate=[10,20])', Scroll("up", 2, Point(10, 20))),
    ("scroll('left', 5, 10, 20)", Scroll("left", 5, Point(10, 20))),
    ("scroll('down', x=10, y=20)", Scroll("down", 1, Point(10, 20))),
    ('type("hi")', TypeText("hi")),
    ('type(text="hi\\n")', TypeText("hi\n")),
    ("type('a;b', True)", TypeText("a;b", True)),
    ("type(text='', press_enter=True)", TypeText("", True)),
    ('key(["ctrl","c"])', KeyPress(("ctrl", "c"))),
    ('key("ctrl+c")', KeyPress(("ctrl", "c"))),
    ('key("enter")', KeyPress(("enter",))),
    ('key("Ctrl", "Shift", "T")', KeyPress(("ctrl", "shift", "t"))),
    ("key(keys='cmd+plus')", KeyPress(("super", "+"))),
    ('key("ctrl++")', KeyPress(("ctrl", "+"))),
    ("key_down('shift')", KeyDown("shift")),
    ("key_up(key='Shift')", KeyUp("shift")),
    ("hold_key('w', 2)", HoldKey(("w",), 2)),
    ("hold_key(['shift', 'a'], duration=0.5)", HoldKey(("shift", "a"), 0.5)),
    ("wait(2)", Wait(2)),
    ("wait()", Wait()),
    ("wait(duration=0)", Wait(0)),
    ("screenshot()", Screenshot()),
    ("cursor_position()", CursorPosition()),
    ("done()", Done()),
    ('done("answer")', Done("answer")),
    ("done(answer=None)", Done()),
    ('fail("reason")', Fail("reason")),
    ("tap(1,2)", Tap(Point(1, 2))),
    ("tap(x=1, y=2)", Tap(Point(1, 2))),
    ("long_press(1, 2, 3)", LongPress(Point(1, 2), 3)),
    ("swipe([500, 800], [500, 200])", Swipe(Point(500, 800), Point(500, 200))),
    ("swipe(500, 800, 500, 200, 1.5)", Swipe(Point(500, 800), Point(500, 200), 1.5)),
    ("pinch(500, 500, 0.5)", Pinch(Point(500, 500), 0.5)),
    ("pinch(center=[500, 500], scale=2)", Pinch(Point(500, 500), 2)),
    ("system_button('back')", SystemButton("back")),
    ("open_app('Settings')", OpenApp("Settings")),
    ("open_app(app='com.android.settings')", OpenApp("com.android.settings")),
    ("  click( 500 ,\n 300 )  ", Click(P)),
    ("click(500, 300)  # the OK button", Click(P)),
]


@pytest.mark.parametrize(("text", "expected"), GOOD)
def test_good_forms_parse(text: str, expected: Action) -> None:
    assert parse_action(text) == expected


def test_every_kind_has_a_good_form() -> None:
    assert {action.kind for _, action in GOOD} == set(ACTIONS)


BAD: list[tuple[str, str]] = [
    ("__import__('os').system('x')", "is not an action name"),
    ("type(__import__('os').system('x'))", "argument 1 is not a literal"),
    ("click(x=__import__('os').getpid(), y=1)", "argument x is not a literal"),
    ("click(1 + foo, 2)", "argument 1 is not a literal"),
    ("click(1,2,3,4,5)", "too many arguments for click"),
    ("screenshot(1)", "too many arguments for screenshot: it takes no arguments"),
    ("clik(1, 2)", "unknown action 'clik'; did you mean 'click'?"),
    ("eval('1')", "unknown action 'eval'"),
    ("pyautogui.click(1, 2)", "pyautogui.click is not an action name"),
    ("click(1,,2)", "invalid syntax at line 1, column 9"),
    ("click(500, 300", "line 1"),
    ("click(2000, 1)", "click.coordinate.x: 2000 is outside [0, 1000]"),
    ("click(500, 300, 'lefty')", "click.button: 'lefty' is not one of left, right, middle"),
    ("click(foo=1)", "click has no argument 'foo'; allowed: coordinate, button, clicks, x, y"),
    ("click(x=1)", "x and y must be given together"),
    ("click(1, 2, coordinate=[1, 2])", "click got 'coordinate' twice"),
    ("click(coordinate=[1, 2], x=1, y=2)", "got 'coordinate' twice"),
    ("drag([1, 2], x=1, y=2)", "drag has no argument 'x'"),
    ("click(*[1, 2])", "unpacking with * is not allowed"),
    ("click(**{'x': 1})", "unpacking with ** is not allowed"),
    ("key('ctrl_l')", "key.keys: unknown key 'ctrl_l'; did you mean 'ctrl'?"),
    ("key('ctrl+')", "expected a key name after '+'"),
    ("key(['ctrl+c'])", "unknown key 'ctrl+c'"),
    ("scroll('sideways')", "scroll.direction: 'sideways'"),
    ("wait(-1)", "wait.duration: -1 is outside [0, 60]"),
    ("wait(1e400)", "wait.duration: inf is not a finite number"),
    ("type(b'hi')", "type.text: b'hi' is not a string"),
    ("x = 1", "expected an action call"),
    ("import os", "expected an action call"),
    ("click(1, 2); type('a')", "expected exactly one action, found 2"),
    ("", "expected exactly one action, found 0"),
    ("click(1, 2)(3)", "is not an action name"),
    ("\x00", "cannot parse"),
]


@pytest.mark.parametrize(("text", "fragment"), BAD)
def test_bad_forms_are_rejected_with_a_reason(text: str, fragment: str) -> None:
    with pytest.raises(ActionError) as raised:
        parse_action(text)
    assert fragment in str(raised.value)


def test_syntax_errors_point_at_the_column() -> None:
    with pytest.raises(ActionError) as raised:
        parse_action("click(1,,2)")
    assert str(raised.value).endswith("    click(1,,2)\n            ^")


def test_parse_actions_splits_on_newlines_and_semicolons() -> None:
    text = "click(500, 300)\ntype('a;b\\nc'); key('enter')\n\nwait(1)"
    assert parse_actions(text) == [
        Click(P),
        TypeText("a;b\nc"),
        KeyPress(("enter",)),
        Wait(1),
    ]


def test_parse_actions_accepts_a_uniformly_indented_block_and_blank_text() -> None:
    assert parse_actions("    click(1, 2)\n    done()\n") == [Click(Point(1, 2)), Done()]
    assert parse_actions("  \n ") == []


def test_parse_actions_names_the_failing_line() -> None:
    with pytest.raises(ActionError, match=r"line 2"):
        parse_actions("click(1, 2)\nclick(1, 2000)")


@given(st.text())
def test_arbitrary_text_gives_an_action_or_an_action_error(text: str) -> None:
    try:
        action = parse_action(text)
    except ActionError:
        return
    assert action.kind in ACTIONS


literals = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats()
    | st.text(max_size=10)
    | st.sampled_from(["left", "up", "ctrl+c", "enter", "back"]),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner),
    max_leaves=6,
)


@given(
    kind=st.sampled_from(sorted(ACTIONS)),
    args=st.lists(literals, max_size=5),
    kwargs=st.dictionaries(
        st.sampled_from(["coordinate", "x", "y", "button", "keys", "text", "duration", "zz"]),
        literals,
        max_size=3,
    ),
)
def test_calls_with_arbitrary_literals_give_an_action_or_an_action_error(
    kind: str, args: list[object], kwargs: dict[str, object]
) -> None:
    rendered = [repr(arg) for arg in args] + [f"{name}={value!r}" for name, value in kwargs.items()]
    try:
        action = parse_action(f"{kind}({', '.join(rendered)})")
    except ActionError:
        return
    assert action.kind == kind
