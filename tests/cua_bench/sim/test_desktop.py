"""The sim desktop as a whole: accessibility bounds, determinism, the action space, rendering."""

from __future__ import annotations

import hashlib
import io
from typing import Any

import pytest
from PIL import Image

from cua_bench.nodes import center, find, walk
from cua_bench.sim import Label, SimDesktop, TextField
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
    to_pixels,
)


def node(desktop: SimDesktop, role: str, name: str | None = None, **match: Any) -> dict[str, Any]:
    return find(desktop.a11y(), role=role, name=name, **match)


def scene(width: int, height: int, seed: int = 0) -> SimDesktop:
    """Three windows side by side that fit 800x600: a form, an editor and a file browser."""
    desktop = SimDesktop(width, height, seed, taskbar=True)
    for name in ("a.txt", "b.txt", "c.txt"):
        desktop.fs.write(f"/home/user/{name}", name)
    desktop.launch(
        "form",
        title="Form",
        x=5,
        y=5,
        width=390,
        widgets=[
            {"type": "textfield", "name": "First"},
            {"type": "textfield", "name": "Last"},
            {"type": "checkbox", "name": "Agree"},
            {"type": "radio", "name": "Size", "options": ["S", "M", "L"]},
            {"type": "dropdown", "name": "Color", "options": ["Red", "Blue"]},
            {"type": "slider", "name": "Level"},
            {"type": "list", "name": "Pets", "items": ["Cat", "Dog", "Fish"], "height": 80},
            {"type": "row", "items": [{"type": "button", "name": "Go", "action": "none"},
                                      {"type": "button", "name": "Stop", "action": "none"}]},
        ],
    )  # fmt: skip
    desktop.launch("editor", text="some text", x=400, y=5, width=390, height=250)
    desktop.launch("files", folder="/home/user", x=400, y=260, width=390, height=290)
    return desktop


_EXPECT = {
    "textbox": "focused",
    "checkbox": "focused",
    "slider": "focused",
    "combobox": "expanded",
    "radio": "checked",
    "listitem": "selected",
    "button": "focused",
    "menu": "expanded",
}
_SKIP = {("button", "Close"), ("button", "Up"), ("button", "New Folder")}


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (800, 600)])
def test_clicking_the_centre_of_each_node_hits_that_widget(width: int, height: int) -> None:
    desktop = scene(width, height)
    targets = [
        (n["role"], n["name"])
        for root in desktop.a11y()
        if root["role"] == "window"
        for n in walk([root])
        if n["role"] in _EXPECT and (n["role"], n["name"]) not in _SKIP
    ]
    assert len(targets) >= 20 and len({role for role, _ in targets}) == len(_EXPECT)
    for role, name in targets:
        target = node(desktop, role, name)
        x, y = to_pixels(center(target), width, height)
        left, top, right, bottom = target["bounds"]
        assert left * width / 1000 <= x < right * width / 1000 and top * height / 1000 <= y < bottom * height / 1000
        assert desktop.apply(Click(center(target))) is None
        assert _EXPECT[role] in node(desktop, role, name)["states"], (role, name)
        if role in ("combobox", "menu"):
            assert desktop.apply(KeyPress(("escape",))) is None
    # The taskbar's buttons raise their windows.
    assert desktop.apply(Click(center(node(desktop, "button", "Form")))) is None
    assert desktop.windows()[0].title == "Form"


def test_bounds_are_normalised_and_clipped_to_the_screen() -> None:
    desktop = SimDesktop(800, 600)
    window = desktop.open_window("Half off", 700, 500, 300, 200)
    window.add(TextField("Visible", x=10, y=40, width=60))
    window.add(TextField("Off screen", x=150, y=40, width=60))
    root = node(desktop, "window", "Half off")
    assert root["bounds"] == [875.0, pytest.approx(833.333), 1000.0, 1000.0]
    names = [n["name"] for n in walk([root])]
    assert "Visible" in names and "Off screen" not in names


def script() -> list[Action]:
    return [
        Click(Point(100, 80)),
        TypeText("Hello, world"),
        KeyPress(("shift", "home")),
        KeyPress(("ctrl", "c")),
        KeyPress(("tab",)),
        KeyPress(("ctrl", "v")),
        Click(Point(30, 330)),
        Scroll("down", 2, Point(700, 700)),
        Drag(Point(600, 15), Point(650, 40)),
        MouseMove(Point(500, 500)),
        KeyPress(("alt", "f")),
        KeyPress(("down",)),
    ]


def test_same_seed_and_actions_give_identical_frames_and_a_different_seed_does_not() -> None:
    digests = []
    for seed in (0, 0, 1):
        desktop = scene(1280, 800, seed)
        steps = []
        for action in script():
            assert desktop.apply(action) is None
            steps.append(hashlib.sha256(desktop.frame()).hexdigest())
        digests.append(steps)
    assert digests[0] == digests[1]
    assert digests[0][-1] != digests[2][-1]
    assert len(set(digests[0])) > 5  # the actions visibly changed the screen


def test_the_cached_frame_always_equals_a_full_repaint() -> None:
    desktop = scene(1280, 800)
    for action in script():
        desktop.apply(action)
        cached = desktop.frame()
        desktop.invalidate(windows=True)
        assert desktop.frame() == cached, action


def test_frames_are_cached_until_something_changes() -> None:
    desktop = scene(1280, 800)
    first = desktop.frame()
    assert desktop.frame() is first
    assert desktop.apply(Wait(0.5)) is None
    assert desktop.apply(MouseMove(Point(10, 990))) is None  # nothing under the pointer changes
    assert desktop.frame() is first
    label = desktop.windows()[0].add(Label("new text", x=20, y=40, width=100))
    assert desktop.frame() != first
    second = desktop.frame()
    assert isinstance(label, Label)
    label.text = "changed"  # a plain attribute change repaints too
    assert desktop.frame() != second


def test_render_frame_and_png_agree() -> None:
    desktop = SimDesktop(800, 600, taskbar=True)
    desktop.launch("editor", text="x")
    image = desktop.render()
    assert image.mode == "RGB" and image.size == (800, 600)
    assert len(desktop.frame()) == 800 * 600 * 3 and image.tobytes() == desktop.frame()
    decoded = Image.open(io.BytesIO(desktop.png()))
    assert decoded.size == (800, 600) and decoded.convert("RGB").tobytes() == desktop.frame()


def _sample(kind: str) -> Action:
    p, q = Point(400, 300), Point(600, 500)
    samples: dict[str, Action] = {
        "click": Click(p), "mouse_move": MouseMove(p), "mouse_down": MouseDown(coordinate=p),
        "mouse_up": MouseUp(coordinate=q), "drag": Drag(p, q), "scroll": Scroll("down", 3, p),
        "type": TypeText("abc", press_enter=True), "key": KeyPress(("ctrl", "a")), "key_down": KeyDown("shift"),
        "key_up": KeyUp("shift"), "hold_key": HoldKey(("a",), 0.5), "wait": Wait(), "screenshot": Screenshot(),
        "cursor_position": CursorPosition(), "done": Done("x"), "fail": Fail("y"), "tap": Tap(p, 2),
        "long_press": LongPress(p), "swipe": Swipe(p, q), "pinch": Pinch(p, 2.0),
        "system_button": SystemButton("home"), "open_app": OpenApp("Notes"),
    }  # fmt: skip
    return samples[kind]


@pytest.mark.parametrize("kind", list(ACTIONS))
def test_every_action_kind_is_accepted_or_refused_with_a_reason(kind: str) -> None:
    desktop = scene(1280, 800)
    if kind in ("mouse_up", "key_up"):  # releasing needs a press first
        assert desktop.apply(MouseDown() if kind == "mouse_up" else KeyDown("shift")) is None
    result = desktop.apply(_sample(kind))
    if kind in ("pinch", "system_button", "open_app"):  # a phone's
        assert isinstance(result, str) and kind in result
    else:
        assert result is None


def test_refusals_name_the_problem_and_nothing_raises() -> None:
    desktop = scene(1280, 800)
    assert "not down" in str(desktop.apply(MouseUp()))
    assert desktop.apply(MouseDown()) is None
    assert "already down" in str(desktop.apply(MouseDown()))
    assert desktop.apply(MouseUp()) is None
    assert "not held" in str(desktop.apply(KeyUp("ctrl")))
    assert desktop.apply(KeyDown("ctrl")) is None
    assert "already held" in str(desktop.apply(KeyDown("ctrl")))
    assert "not an action" in str(desktop.apply("click(1, 2)"))  # type: ignore[arg-type]
    broken = desktop.find(role="button", name="Go")
    broken.on_click(lambda b: 1 / 0)
    result = desktop.apply(Click(center(node(desktop, "button", "Go"))))
    assert result is not None and "ZeroDivisionError" in result


def test_held_modifiers_combine_with_clicks_keys_and_typing() -> None:
    desktop = SimDesktop()
    window = desktop.open_window("W", 0, 0, 400, 200)
    field = window.add(TextField("F", "abc def"))
    assert isinstance(field, TextField)
    for action in (KeyDown("shift"), KeyPress(("home",)), KeyUp("shift")):
        assert desktop.apply(action) is None
    assert field.selected_text == "abc def"
    for action in (KeyDown("ctrl"), TypeText("c"), KeyUp("ctrl")):
        assert desktop.apply(action) is None
    assert desktop.clipboard == "abc def" and field.text == "abc def"


def test_cursor_position_follows_the_pointer() -> None:
    desktop = SimDesktop(800, 600)
    assert desktop.apply(MouseMove(Point(250, 750))) is None
    assert desktop.cursor == (200, 450)
    position = desktop.cursor_position()
    assert position.x == pytest.approx(250.625) and position.y == pytest.approx(750.833, abs=1e-3)
    assert desktop.apply(Click()) is None  # clicks where the cursor is
    assert desktop.cursor == (200, 450)
