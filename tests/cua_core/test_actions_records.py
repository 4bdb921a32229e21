"""The action records: every kind constructs, every validation rule names field and value."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

from cua_core.actions import (
    ACTIONS,
    KEY_ALIASES,
    KEY_NAMES,
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
    action_from_dict,
    action_to_dict,
    normalize_key,
    split_key_combo,
)
from cua_core.errors import ActionError

P = Point(500, 300)

EXAMPLES: list[Action] = [
    Click(),
    Click(P, "right", 2),
    MouseMove(P),
    MouseDown(),
    MouseUp("middle", P),
    Drag(P, Point(10.5, 20.25)),
    Drag(None, P, "right"),
    Scroll("down", 3),
    Scroll("left", 1, P),
    TypeText("hello"),
    TypeText("", press_enter=True),
    KeyPress(("ctrl", "c")),
    KeyDown("shift"),
    KeyUp("shift"),
    HoldKey(("w",), 2.5),
    Wait(),
    Wait(0),
    Screenshot(),
    CursorPosition(),
    Done(),
    Done("42"),
    Fail(),
    Fail("no such file"),
    Tap(P),
    Tap(P, clicks=2),
    LongPress(P, 2),
    Swipe(P, Point(500, 900)),
    Pinch(P, 0.5),
    SystemButton("back"),
    OpenApp("Settings"),
]

KINDS = [
    "click", "mouse_move", "mouse_down", "mouse_up", "drag", "scroll", "type", "key",
    "key_down", "key_up", "hold_key", "wait", "screenshot", "cursor_position", "done", "fail",
    "tap", "long_press", "swipe", "pinch", "system_button", "open_app",
]  # fmt: skip


def test_registry_holds_exactly_the_documented_kinds() -> None:
    assert list(ACTIONS) == KINDS
    for kind, cls in ACTIONS.items():
        assert cls.kind == kind


def test_examples_cover_every_kind() -> None:
    assert {action.kind for action in EXAMPLES} == set(KINDS)


@pytest.mark.parametrize("action", EXAMPLES, ids=repr)
def test_every_kind_constructs_and_round_trips_through_a_dict(action: Action) -> None:
    plain = action_to_dict(action)
    assert plain["kind"] == action.kind
    assert action_from_dict(plain) == action


def test_records_are_frozen_and_hashable() -> None:
    click = Click(P)
    with pytest.raises(dataclasses.FrozenInstanceError):
        click.button = "right"  # type: ignore[misc]
    assert hash(click) == hash(Click(Point(500, 300)))


def test_defaults() -> None:
    assert Click() == Click(None, "left", 1)
    assert Wait().duration == 1.0
    assert LongPress(P).duration == 1.0
    assert Swipe(P, P).duration == 0.5
    assert Scroll("up").amount == 1
    assert TypeText("a").press_enter is False


def test_numpy_scalars_become_plain_numbers() -> None:
    click = Click(Point(np.float32(1.5), np.int64(7)), clicks=np.int64(2))  # type: ignore[arg-type]
    assert type(click.coordinate.x) is float  # type: ignore[union-attr]
    assert type(click.coordinate.y) is int  # type: ignore[union-attr]
    assert type(click.clicks) is int


Build = Callable[[], object]

INVALID: list[tuple[Build, list[str]]] = [
    (lambda: Click(P, "lefty"), ["click.button", "'lefty'", "left, right, middle"]),  # type: ignore[arg-type]
    (lambda: Click(P, clicks=4), ["click.clicks", "4", "[1, 3]"]),
    (lambda: Click(P, clicks=0), ["click.clicks", "0"]),
    (lambda: Click(P, clicks=True), ["click.clicks", "True", "not an integer"]),
    (lambda: Click(P, clicks=2.0), ["click.clicks", "2.0", "not an integer"]),  # type: ignore[arg-type]
    (lambda: Click((500, 300)), ["click.coordinate", "(500, 300)", "Point"]),  # type: ignore[arg-type]
    (lambda: Point(1001, 0), ["point.x", "1001", "[0, 1000]"]),
    (lambda: Point(0, -0.5), ["point.y", "-0.5", "[0, 1000]"]),
    (lambda: Point(float("nan"), 0), ["point.x", "nan", "finite"]),
    (lambda: Point(0, float("inf")), ["point.y", "inf", "finite"]),
    (lambda: Point(True, 0), ["point.x", "True", "not a number"]),
    (lambda: Point("5", 0), ["point.x", "'5'", "not a number"]),  # type: ignore[arg-type]
    (lambda: MouseMove(None), ["mouse_move.coordinate", "None"]),  # type: ignore[arg-type]
    (lambda: MouseDown("side"), ["mouse_down.button", "'side'"]),  # type: ignore[arg-type]
    (lambda: MouseUp("x"), ["mouse_up.button", "'x'"]),  # type: ignore[arg-type]
    (lambda: Drag(P, None), ["drag.end", "None"]),  # type: ignore[arg-type]
    (lambda: Drag(P, P, "wheel"), ["drag.button", "'wheel'"]),  # type: ignore[arg-type]
    (lambda: Scroll("sideways"), ["scroll.direction", "'sideways'", "up, down, left, right"]),  # type: ignore[arg-type]
    (lambda: Scroll("up", 0), ["scroll.amount", "0", "[1, 100]"]),
    (lambda: Scroll("up", 101), ["scroll.amount", "101"]),
    (lambda: TypeText(5), ["type.text", "5", "not a string"]),  # type: ignore[arg-type]
    (lambda: TypeText("a", 1), ["type.press_enter", "1", "true or false"]),  # type: ignore[arg-type]
    (lambda: KeyPress(()), ["key.keys", "empty"]),
    (lambda: KeyPress("ctrl+c"), ["key.keys", "'ctrl+c'", "not a list"]),  # type: ignore[arg-type]
    (lambda: KeyPress(("ctrl_l",)), ["key.keys", "'ctrl_l'", "did you mean 'ctrl'"]),
    (lambda: KeyPress(("ctrl", "Control")), ["key.keys", "'ctrl'", "more than once"]),
    (lambda: KeyPress(("ctrl", 3)), ["key.keys", "3", "not a key name"]),  # type: ignore[arg-type]
    (lambda: KeyPress(("zzzzzz",)), ["key.keys", "'zzzzzz'", "named key"]),
    (lambda: KeyDown("shfit"), ["key_down.key", "'shfit'", "did you mean 'shift'"]),
    (lambda: KeyUp(""), ["key_up.key", "''", "unknown key"]),
    (lambda: HoldKey(("a",), 0), ["hold_key.duration", "0", "(0, 60]"]),
    (lambda: HoldKey(("a",), 61), ["hold_key.duration", "61"]),
    (lambda: HoldKey((), 1), ["hold_key.keys", "empty"]),
    (lambda: Wait(-1), ["wait.duration", "-1", "[0, 60]"]),
    (lambda: Wait(float("inf")), ["wait.duration", "inf", "finite"]),
    (lambda: Wait("1"), ["wait.duration", "'1'", "not a number"]),  # type: ignore[arg-type]
    (lambda: Done(42), ["done.answer", "42", "not a string"]),  # type: ignore[arg-type]
    (lambda: Fail(["x"]), ["fail.reason", "['x']"]),  # type: ignore[arg-type]
    (lambda: Tap([1, 2]), ["tap.coordinate", "[1, 2]"]),  # type: ignore[arg-type]
    (lambda: Tap(P, clicks=3), ["tap.clicks", "3"]),
    (lambda: LongPress(P, 0), ["long_press.duration", "0", "(0, 60]"]),
    (lambda: Swipe(P, P, -1), ["swipe.duration", "-1"]),
    (lambda: Swipe(P, "up"), ["swipe.end", "'up'"]),  # type: ignore[arg-type]
    (lambda: Pinch(P, 0), ["pinch.scale", "0", "(0, 100]"]),
    (lambda: Pinch(P, float("nan")), ["pinch.scale", "nan"]),
    (lambda: SystemButton("start"), ["system_button.button", "'start'", "home, back"]),  # type: ignore[arg-type]
    (lambda: OpenApp("  "), ["open_app.app", "name the app"]),
    (lambda: OpenApp(None), ["open_app.app", "None", "not a string"]),  # type: ignore[arg-type]
]


# Ids from the expected message only: a lambda's repr holds its address, which differs between pytest-xdist workers.
@pytest.mark.parametrize(("build", "fragments"), INVALID, ids=[" ".join(fragments)[:40] for _, fragments in INVALID])
def test_invalid_values_are_rejected_with_field_and_value(build: Build, fragments: list[str]) -> None:
    with pytest.raises(ActionError) as raised:
        build()
    for fragment in fragments:
        assert fragment in str(raised.value)


def test_action_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"click\.button"):
        Click(P, "lefty")  # type: ignore[arg-type]


ALIASES = [
    ("Ctrl", "ctrl"), ("CTRL", "ctrl"), ("control", "ctrl"), ("ctrlleft", "ctrl"),
    ("Return", "enter"), ("\n", "enter"), ("esc", "escape"), ("Escape", "escape"),
    ("cmd", "super"), ("command", "super"), ("win", "super"), ("windows", "super"),
    ("meta", "super"), ("Super", "super"), ("option", "alt"), ("altright", "alt"),
    ("del", "delete"), ("pgup", "pageup"), ("pgdn", "pagedown"), ("page_down", "pagedown"),
    ("PageUp", "pageup"), ("ArrowUp", "up"), ("ArrowDown", "down"), ("arrowleft", "left"),
    ("arrow_right", "right"), ("plus", "+"), ("minus", "-"), ("equal", "="), (" ", "space"),
    ("\t", "tab"), ("A", "a"), ("F12", "f12"), ("f24", "f24"), ("Caps_Lock", "capslock"),
    ("kp_enter", "kp_enter"), ("volume_up", "volumeup"), ("mute", "volumemute"),
    ("prtsc", "printscreen"), ("apps", "menu"), ("-", "-"), ("_", "_"), ("\\", "\\"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "canonical"), ALIASES)
def test_key_aliases_fold_to_one_spelling(name: str, canonical: str) -> None:
    assert normalize_key(name, "test") == canonical
    assert KeyPress((name,)).keys == (canonical,)


# CUA-Lite's stored vocabulary (lite/data/preproc/AGENTS.md, "Keyboard keys") and its aliases.
CUA_LITE_KEYS = [
    "ctrl", "alt", "shift", "meta", "enter", "tab", "space", "backspace", "delete", "esc",
    "up", "down", "left", "right", "home", "end", "pageup", "pagedown", "insert", "capslock",
    "menu", "clear", "printscreen", "kp_enter", "volumeup", "volumedown", "volumemute",
    "playpause", "nexttrack", "prevtrack",
    "Ctrl", "CTRL", "ArrowDown", "Return", "control", "cmd", "super", "win", "option",
    "escape", "pgdn", "page_down", "plus", "minus", "equal",
    *(f"f{n}" for n in range(1, 25)),
    *(chr(c) for c in range(33, 127)),
]  # fmt: skip


@pytest.mark.parametrize("name", CUA_LITE_KEYS)
def test_cua_lite_key_vocabulary_is_accepted(name: str) -> None:
    assert normalize_key(name, "test") in KEY_NAMES


def test_every_alias_points_at_a_canonical_key() -> None:
    assert set(KEY_ALIASES.values()) <= KEY_NAMES
    # Folding case and separators must not make two spellings collide.
    for name in KEY_NAMES:
        assert normalize_key(name, "test") == name
    for alias, name in KEY_ALIASES.items():
        assert normalize_key(alias, "test") == name


@pytest.mark.parametrize(
    ("combo", "keys"),
    [
        ("ctrl+c", ("ctrl", "c")),
        ("ctrl+shift+t", ("ctrl", "shift", "t")),
        ("ctrl + c", ("ctrl", "c")),
        ("enter", ("enter",)),
        ("+", ("+",)),
        ("ctrl++", ("ctrl", "+")),
        ("ctrl+plus", ("ctrl", "plus")),
        ("ctrl+ ", ("ctrl", " ")),
    ],
)
def test_split_key_combo(combo: str, keys: tuple[str, ...]) -> None:
    assert split_key_combo(combo) == keys


@pytest.mark.parametrize("combo", ["", "ctrl+", "ctrl+++", "++"])
def test_split_key_combo_rejects_dangling_separators(combo: str) -> None:
    with pytest.raises(ActionError, match="key combination"):
        split_key_combo(combo)
