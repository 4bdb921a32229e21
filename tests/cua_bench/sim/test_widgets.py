"""Each sim widget driven only through unified actions ends in the expected state."""

from __future__ import annotations

from typing import Any

import pytest

from cua_bench.nodes import center, find
from cua_bench.sim import (
    Button,
    Checkbox,
    Draggable,
    Dropdown,
    DropTarget,
    ListView,
    RadioGroup,
    SimDesktop,
    Slider,
    TextArea,
    TextField,
)
from cua_core.actions import (
    Action,
    Click,
    Drag,
    KeyDown,
    KeyPress,
    KeyUp,
    MouseDown,
    MouseMove,
    MouseUp,
    Point,
    Scroll,
    TypeText,
    from_pixels,
)


def node(desktop: SimDesktop, role: str, name: str | None = None, **match: Any) -> dict[str, Any]:
    return find(desktop.a11y(), role=role, name=name, **match)


def act(desktop: SimDesktop, *actions: Action) -> None:
    for action in actions:
        assert desktop.apply(action) is None, action


def click(desktop: SimDesktop, role: str, name: str | None = None, clicks: int = 1, **match: Any) -> None:
    act(desktop, Click(center(node(desktop, role, name, **match)), clicks=clicks))


def keys(desktop: SimDesktop, *chord: str) -> None:
    act(desktop, KeyPress(chord))


def type_text(desktop: SimDesktop, text: str, enter: bool = False) -> None:
    act(desktop, TypeText(text, press_enter=enter))


def point_at(desktop: SimDesktop, widget_rect_x: int, widget_rect_y: int, window_x: int, window_y: int) -> Point:
    return from_pixels(window_x + widget_rect_x, window_y + widget_rect_y, desktop.width, desktop.height)


@pytest.fixture
def desktop() -> SimDesktop:
    return SimDesktop()


def test_button_click_runs_callbacks_and_disabled_buttons_do_nothing(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 100, 100, 400, 300)
    pressed: list[str] = []
    ok = window.add(Button("OK", lambda b: pressed.append(b.label)))
    off = window.add(Button("Off", lambda b: pressed.append(b.label), enabled=False))
    click(desktop, "button", "OK")
    click(desktop, "button", "Off")
    assert pressed == ["OK"]
    assert isinstance(ok, Button) and ok.clicks == 1
    assert isinstance(off, Button) and off.clicks == 0
    assert "disabled" in node(desktop, "button", "Off")["states"]
    # A press that is dragged off the button before release does not click it.
    start = center(node(desktop, "button", "OK"))
    act(desktop, Drag(start, Point(900, 900)))
    assert pressed == ["OK"]


def test_text_field_typing_selection_and_editing_keys(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 100, 100, 500, 300)
    field = window.add(TextField("Name"), label="Name")
    assert isinstance(field, TextField)
    click(desktop, "textbox", "Name")
    type_text(desktop, "hello world")
    assert field.text == "hello world"
    keys(desktop, "shift", "left")
    keys(desktop, "shift", "left")
    assert field.selected_text == "ld"
    type_text(desktop, "LD")  # typing replaces the selection
    assert field.text == "hello worLD"
    keys(desktop, "home")
    keys(desktop, "delete")
    keys(desktop, "end")
    keys(desktop, "backspace")
    assert field.text == "ello worL"
    keys(desktop, "ctrl", "a")
    assert field.selected_text == "ello worL"
    type_text(desktop, "X")
    keys(desktop, "ctrl", "z")
    assert field.text == "ello worL"
    keys(desktop, "ctrl", "y")
    assert field.text == "X"
    keys(desktop, "ctrl", "z")
    keys(desktop, "ctrl", "left")  # from the end of the restored selection: to the start of "worL"
    assert field.caret == len("ello ")
    keys(desktop, "home")
    keys(desktop, "ctrl", "shift", "right")  # a word selected with the keyboard
    assert field.selected_text == "ello"
    found = node(desktop, "textbox", "Name")
    assert found["value"] == "ello worL" and "focused" in found["states"] and "selected" in found["states"]


def test_text_field_mouse_places_caret_double_click_selects_word_and_drag_selects(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 0, 0, 500, 200)
    field = window.add(TextField("F", "alpha beta gamma"))
    assert isinstance(field, TextField)
    box = node(desktop, "textbox", "F")["bounds"]
    left_edge = Point(box[0] + 1, (box[1] + box[3]) / 2)
    act(desktop, Click(left_edge))
    assert field.caret == 0
    rect = field.screen_rect()
    # Double click in the middle word selects it.
    from cua_bench.sim.render import text_width

    x = rect.x + 6 + int(text_width("alpha be"))
    act(desktop, Click(from_pixels(x, rect.y + 10, desktop.width, desktop.height), clicks=2))
    assert field.selected_text == "beta"
    # Dragging from the start to the end of "alpha" selects it.
    x_end = rect.x + 6 + round(text_width("alpha"))
    act(desktop, Drag(from_pixels(rect.x + 6, rect.y + 10, 1280, 800), from_pixels(x_end, rect.y + 10, 1280, 800)))
    assert field.selected_text == "alpha"
    # Shift+click extends the selection from the caret.
    act(desktop, Click(left_edge), KeyDown("shift"), Click(from_pixels(x_end, rect.y + 10, 1280, 800)), KeyUp("shift"))
    assert field.selected_text == "alpha"


def test_text_area_multiline_editing_enter_and_wheel_scroll(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 0, 0, 500, 300)
    area = window.add(TextArea("Body"))
    assert isinstance(area, TextArea)
    click(desktop, "textbox", "Body")
    type_text(desktop, "line one\nline two", enter=True)
    type_text(desktop, "three")
    assert area.text == "line one\nline two\nthree"
    keys(desktop, "up")
    keys(desktop, "home")
    keys(desktop, "shift", "end")
    assert area.selected_text == "line two"
    keys(desktop, "ctrl", "x")
    assert desktop.clipboard == "line two"
    keys(desktop, "ctrl", "end")
    keys(desktop, "ctrl", "v")
    assert area.text == "line one\n\nthreeline two"
    assert "multiline" in node(desktop, "textbox", "Body")["states"]
    # Many lines: the wheel scrolls the view without moving the caret.
    area.text = "\n".join(f"row {n}" for n in range(100))
    assert area.scroll_top > 0  # the caret is at the end, so the view follows it
    top = area.scroll_top
    act(desktop, Scroll("up", 2, center(node(desktop, "textbox", "Body"))))
    assert area.scroll_top == top - 6
    caret = area.caret
    act(desktop, Scroll("down", 1))  # at the cursor, which is over the area
    assert area.scroll_top == top - 3 and area.caret == caret


def test_checkbox_toggles_by_click_and_space(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 0, 0, 400, 200)
    box = window.add(Checkbox("Remember me"))
    assert isinstance(box, Checkbox)
    click(desktop, "checkbox", "Remember me")
    assert box.checked and "checked" in node(desktop, "checkbox", "Remember me")["states"]
    keys(desktop, "space")
    assert not box.checked
    click(desktop, "checkbox", "Remember me")
    assert box.checked


def test_radio_group_click_and_arrow_keys(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 0, 0, 400, 200)
    group = window.add(RadioGroup("Size", ["Small", "Medium", "Large"]))
    assert isinstance(group, RadioGroup)
    click(desktop, "radio", "Medium")
    assert group.selected == "Medium"
    keys(desktop, "down")
    assert group.selected == "Large"
    keys(desktop, "down")
    assert group.selected == "Large"
    keys(desktop, "up")
    keys(desktop, "up")
    assert group.selected == "Small"
    assert node(desktop, "radiogroup", "Size")["value"] == "Small"
    assert "checked" in node(desktop, "radio", "Small")["states"]
    assert "checked" not in node(desktop, "radio", "Large")["states"]


def test_dropdown_click_opens_and_option_click_chooses(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 0, 0, 400, 300)
    dropdown = window.add(Dropdown("Country", ["France", "Germany", "Spain"]), label="Country")
    assert isinstance(dropdown, Dropdown)
    click(desktop, "combobox", "Country")
    combo = node(desktop, "combobox", "Country")
    assert "expanded" in combo["states"]
    assert [item["name"] for item in combo["children"][0]["children"]] == ["France", "Germany", "Spain"]
    click(desktop, "listitem", "Spain")
    assert dropdown.selected == "Spain"
    assert "collapsed" in node(desktop, "combobox", "Country")["states"]
    assert node(desktop, "combobox", "Country")["value"] == "Spain"
    assert desktop.popup is None


def test_dropdown_keyboard_navigation_and_escape(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 0, 0, 400, 300)
    dropdown = window.add(Dropdown("Fruit", ["Apple", "Banana", "Cherry"], "Apple"))
    assert isinstance(dropdown, Dropdown) and dropdown.has_focus
    keys(desktop, "space")
    assert dropdown.expanded
    keys(desktop, "down")
    keys(desktop, "down")
    keys(desktop, "enter")
    assert dropdown.selected == "Cherry" and not dropdown.expanded
    keys(desktop, "alt", "down")
    keys(desktop, "up")
    keys(desktop, "escape")  # escape closes without choosing
    assert dropdown.selected == "Cherry" and not dropdown.expanded
    keys(desktop, "up")  # closed: arrows step through the options
    assert dropdown.selected == "Banana"
    # A click outside an open dropdown closes it and does nothing else.
    keys(desktop, "enter")
    act(desktop, Click(Point(900, 900)))
    assert not dropdown.expanded and dropdown.selected == "Banana"


def test_list_view_click_select_double_click_activate_scroll_and_keys(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 0, 0, 400, 400)
    activated: list[str] = []
    items = [f"Item {n}" for n in range(30)]
    view = window.add(ListView("Things", items, on_activate=lambda v: activated.append(v.selected)), label="Things")
    assert isinstance(view, ListView)
    click(desktop, "listitem", "Item 2")
    assert view.selected == "Item 2"
    assert "selected" in node(desktop, "listitem", "Item 2")["states"]
    click(desktop, "listitem", "Item 3", clicks=2)
    assert activated == ["Item 3"]
    names = [child["name"] for child in node(desktop, "list", "Things")["children"]]
    assert "Item 20" not in names  # scrolled out of view, so not in the tree
    act(desktop, Scroll("down", 5, center(node(desktop, "list", "Things"))))
    names = [child["name"] for child in node(desktop, "list", "Things")["children"]]
    assert "Item 20" in names and "Item 0" not in names
    click(desktop, "listitem", "Item 20")
    assert view.selected == "Item 20"
    keys(desktop, "down")
    keys(desktop, "enter")
    assert activated == ["Item 3", "Item 21"]
    keys(desktop, "home")
    assert view.selected == "Item 0" and view.scroll_top == 0
    type_text(desktop, "I")  # type-ahead: the next item starting with "I"
    assert view.selected == "Item 1"


def test_slider_track_click_thumb_drag_and_keys(desktop: SimDesktop) -> None:
    window = desktop.open_window("W", 0, 0, 500, 200)
    slider = window.add(Slider("Volume", 0, 100, 50), label="Volume")
    assert isinstance(slider, Slider)
    left, top, right, bottom = node(desktop, "slider", "Volume")["bounds"]
    middle = (top + bottom) / 2
    act(desktop, Click(Point(left + 0.25 * (right - left), middle)))
    assert slider.current == 25
    keys(desktop, "right")
    keys(desktop, "up")
    assert slider.current == 27
    keys(desktop, "end")
    assert slider.current == 100
    track = slider.track().moved(window.rect.x, window.rect.y)
    thumb = from_pixels(slider.thumb_x() + window.rect.x, track.y + track.height // 2, 1280, 800)
    act(desktop, MouseDown(coordinate=thumb), MouseMove(Point(left, middle)), MouseUp())
    assert slider.current == 0
    assert node(desktop, "slider", "Volume")["value"] == 0
    keys(desktop, "pageup")
    assert slider.current == 10


def test_drag_and_drop_with_drag_action_and_with_mouse_down_move_up(desktop: SimDesktop) -> None:
    window = desktop.open_window("Sort", 0, 0, 600, 500)
    dropped: list[str] = []
    for name in ("Apple", "Carrot"):
        window.add(Draggable(name))
    fruit = window.add(DropTarget("Fruit", on_drop=lambda t, chip: dropped.append(chip.name)))
    other = desktop.open_window("Other", 620, 0, 400, 300)
    veg = other.add(DropTarget("Vegetables"))
    assert isinstance(fruit, DropTarget) and isinstance(veg, DropTarget)
    act(desktop, Drag(center(node(desktop, "draggable", "Apple")), center(node(desktop, "droptarget", "Fruit"))))
    assert fruit.items == ["Apple"] and dropped == ["Apple"]
    assert node(desktop, "droptarget", "Fruit")["value"] == ["Apple"]
    # Into a target in another window, by hand.
    act(
        desktop,
        MouseDown(coordinate=center(node(desktop, "draggable", "Carrot"))),
        MouseMove(Point(700, 100)),
        MouseMove(center(node(desktop, "droptarget", "Vegetables"))),
        MouseUp(),
    )
    assert veg.items == ["Carrot"]
    carrot = desktop.find(role="draggable", name="Carrot")
    assert carrot.window is other and carrot.container is veg
    # Dropped nowhere: it stays where it was.
    act(desktop, Drag(center(node(desktop, "draggable", "Apple")), Point(990, 990)))
    assert fruit.items == ["Apple"] and veg.items == ["Carrot"]
    # The chip inside a target can move again.
    act(desktop, Drag(center(node(desktop, "draggable", "Apple")), center(node(desktop, "droptarget", "Vegetables"))))
    assert fruit.items == [] and veg.items == ["Carrot", "Apple"]
