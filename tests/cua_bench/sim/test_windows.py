"""Windows, focus, dialogs, menus and the clipboard on the sim desktop, driven by actions."""

from __future__ import annotations

from typing import Any

import pytest

from cua_bench.nodes import center, find
from cua_bench.sim import Button, Checkbox, Menu, MenuBar, MenuItem, SimDesktop, TextField, Window
from cua_core.actions import Action, Click, Drag, KeyPress, MouseMove, Point, TypeText, from_pixels


def node(desktop: SimDesktop, role: str, name: str | None = None, **match: Any) -> dict[str, Any]:
    return find(desktop.a11y(), role=role, name=name, **match)


def act(desktop: SimDesktop, *actions: Action) -> None:
    for action in actions:
        assert desktop.apply(action) is None, action


def click(desktop: SimDesktop, role: str, name: str | None = None, **match: Any) -> None:
    act(desktop, Click(center(node(desktop, role, name, **match))))


def keys(desktop: SimDesktop, *chord: str) -> None:
    act(desktop, KeyPress(chord))


@pytest.fixture
def desktop() -> SimDesktop:
    return SimDesktop()


def _form(desktop: SimDesktop) -> tuple[Window, list[Any]]:
    window = desktop.open_window("Login", 100, 100, 420, 300)
    user = window.add(TextField("User"), label="User")
    password = window.add(TextField("Password"), label="Password")
    remember = window.add(Checkbox("Remember"))
    ok = Button("Sign in", default=True)
    cancel = Button("Cancel")
    window.add_row(ok, cancel)
    return window, [user, password, remember, ok, cancel]


def test_tab_and_shift_tab_traverse_focusable_widgets_in_order_and_wrap(desktop: SimDesktop) -> None:
    window, widgets = _form(desktop)
    assert window.focus_widget is widgets[0]  # a new window focuses its first control
    seen = []
    for _ in range(len(widgets)):
        keys(desktop, "tab")
        seen.append(window.focus_widget)
    assert seen == [*widgets[1:], widgets[0]]
    keys(desktop, "shift", "tab")
    assert window.focus_widget is widgets[-1]
    assert "focused" in node(desktop, "button", "Cancel")["states"]
    # The type action's tab character moves focus too.
    act(desktop, TypeText("\t"))
    assert window.focus_widget is widgets[0]


def test_enter_in_a_field_presses_the_default_button_and_enter_on_a_button_presses_it(desktop: SimDesktop) -> None:
    _, (user, _, _, ok, cancel) = _form(desktop)
    pressed: list[str] = []
    ok.on_click(lambda b: pressed.append(b.label))
    cancel.on_click(lambda b: pressed.append(b.label))
    act(desktop, TypeText("ada", press_enter=True))
    assert user.text == "ada" and pressed == ["Sign in"]
    click(desktop, "button", "Cancel")
    keys(desktop, "enter")
    keys(desktop, "space")
    assert pressed == ["Sign in", "Cancel", "Cancel", "Cancel"]


def test_click_raises_and_focuses_and_title_bar_drag_moves_and_close_button_closes(desktop: SimDesktop) -> None:
    first = desktop.open_window("First", 50, 50, 400, 300)
    second = desktop.open_window("Second", 200, 120, 400, 300)
    assert desktop.focused_window is second
    # The visible part of the first window, away from the second.
    act(desktop, Click(from_pixels(60, 200, 1280, 800)))
    assert desktop.focused_window is first and desktop.windows() == [first, second]
    assert "focused" in node(desktop, "window", "First")["states"]
    assert "focused" not in node(desktop, "window", "Second")["states"]
    start = from_pixels(first.rect.x + 100, first.rect.y + 10, 1280, 800)
    act(desktop, Drag(start, from_pixels(first.rect.x + 400, first.rect.y + 210, 1280, 800)))
    assert (first.rect.x, first.rect.y) == (350, 250)
    click(desktop, "button", "Close")  # the front window's close button comes first in the tree
    assert desktop.windows() == [second] and first.closed
    assert desktop.focused_window is second


def test_modal_dialog_blocks_clicks_on_other_windows_until_answered(desktop: SimDesktop) -> None:
    window = desktop.open_window("Main", 0, 0, 500, 400)
    pressed: list[str] = []
    window.add(Button("Do it", lambda b: pressed.append("main")))
    answers: list[str | None] = []
    dialog = desktop.open_dialog("Confirm", "Really delete?", ("Yes", "No"), on_result=answers.append)
    assert desktop.focused_window is dialog and "modal" in node(desktop, "dialog", "Confirm")["states"]
    do_it = window.find(role="button", name="Do it").screen_rect()
    assert desktop.window_at(do_it.x + 5, do_it.y + 5) is window  # visible, not covered by the dialog
    act(desktop, Click(from_pixels(do_it.x + 5, do_it.y + 5, 1280, 800)))
    assert pressed == [] and desktop.focused_window is dialog
    keys(desktop, "tab")  # keyboard stays in the dialog
    assert dialog.focus_widget is dialog.find(role="button", name="No")
    click(desktop, "button", "Yes")
    assert answers == ["Yes"] and dialog.result == "Yes" and dialog.closed
    act(desktop, Click(from_pixels(do_it.x + 5, do_it.y + 5, 1280, 800)))
    assert pressed == ["main"]
    # Escape cancels a dialog.
    again = desktop.open_dialog("Again", "Sure?", ("OK", "Cancel"), on_result=answers.append)
    keys(desktop, "escape")
    assert again.closed and answers == ["Yes", None]


def test_clipboard_copy_paste_between_two_windows(desktop: SimDesktop) -> None:
    left = desktop.open_window("Left", 0, 0, 400, 200)
    right = desktop.open_window("Right", 500, 0, 400, 200)
    source = left.add(TextField("Source", "copy me please"))
    target = right.add(TextField("Target", "x"))
    assert isinstance(source, TextField) and isinstance(target, TextField)
    click(desktop, "textbox", "Source")
    keys(desktop, "ctrl", "a")
    keys(desktop, "ctrl", "c")
    assert desktop.clipboard == "copy me please"
    click(desktop, "textbox", "Target")
    keys(desktop, "end")
    keys(desktop, "ctrl", "v")
    assert target.text == "xcopy me please"
    assert source.text == "copy me please"
    click(desktop, "textbox", "Source")
    keys(desktop, "ctrl", "a")
    keys(desktop, "ctrl", "x")
    assert source.text == "" and desktop.clipboard == "copy me please"


def _menu_window(desktop: SimDesktop) -> tuple[Window, list[str]]:
    ran: list[str] = []

    def item(label: str, shortcut: str = "", enabled: bool = True) -> MenuItem:
        return MenuItem(label, lambda i: ran.append(i.label), shortcut=shortcut, enabled=enabled)

    window = desktop.open_window("App", 100, 100, 500, 300)
    window.add(
        MenuBar(
            [
                Menu("File", [item("New", "ctrl+n"), item("Open"), MenuItem.separator(), item("Quit", "ctrl+q")]),
                Menu("Edit", [item("Undo", enabled=False), item("Copy"), item("Paste")]),
                Menu("Help", [item("About")]),
            ]
        )
    )
    window.add(TextField("Notes"))
    return window, ran


def test_menu_click_open_hover_switch_and_item_click(desktop: SimDesktop) -> None:
    _, ran = _menu_window(desktop)
    click(desktop, "menu", "File")
    file_menu = node(desktop, "menu", "File")
    assert "expanded" in file_menu["states"]
    assert [c["name"] for c in file_menu["children"]] == ["New", "Open", "Quit"]
    assert file_menu["children"][0]["value"] == "Ctrl+N"
    act(desktop, MouseMove(center(node(desktop, "menu", "Edit"))))
    assert "expanded" in node(desktop, "menu", "Edit")["states"]
    assert "collapsed" in node(desktop, "menu", "File")["states"]
    click(desktop, "menuitem", "Undo")  # disabled: nothing runs, the menu stays open
    assert ran == [] and desktop.popup is not None
    click(desktop, "menuitem", "Paste")
    assert ran == ["Paste"] and desktop.popup is None
    click(desktop, "menu", "Help")
    act(desktop, Click(Point(990, 990)))  # click outside closes
    assert desktop.popup is None and ran == ["Paste"]


def test_menu_keyboard_navigation_shortcuts_and_escape(desktop: SimDesktop) -> None:
    window, ran = _menu_window(desktop)
    keys(desktop, "alt", "f")
    assert "expanded" in node(desktop, "menu", "File")["states"]
    assert "focused" in node(desktop, "menuitem", "New")["states"]
    keys(desktop, "down")
    keys(desktop, "down")  # skips the separator
    assert "focused" in node(desktop, "menuitem", "Quit")["states"]
    keys(desktop, "right")
    assert "expanded" in node(desktop, "menu", "Edit")["states"]
    assert "focused" in node(desktop, "menuitem", "Copy")["states"]  # the disabled Undo is skipped
    keys(desktop, "escape")
    assert desktop.popup is None
    keys(desktop, "f10")
    keys(desktop, "left")  # wraps to the last menu
    assert "expanded" in node(desktop, "menu", "Help")["states"]
    keys(desktop, "enter")
    assert ran == ["About"]
    keys(desktop, "ctrl", "q")
    keys(desktop, "ctrl", "n")
    assert ran == ["About", "Quit", "New"]
    # Typing still goes to the focused field when no menu is open.
    act(desktop, TypeText("hi"))
    assert window.find(role="textbox", name="Notes").text == "hi"


def test_hovering_menu_items_highlights_them_and_cmd_shortcuts_count_as_ctrl(desktop: SimDesktop) -> None:
    _, ran = _menu_window(desktop)
    click(desktop, "menu", "File")
    act(desktop, MouseMove(center(node(desktop, "menuitem", "Open"))))
    assert "focused" in node(desktop, "menuitem", "Open")["states"]
    assert "focused" not in node(desktop, "menuitem", "New")["states"]
    keys(desktop, "enter")
    assert ran == ["Open"]
    keys(desktop, "cmd", "n")
    assert ran == ["Open", "New"]


def test_long_press_opens_a_context_menu_and_double_tap_activates(desktop: SimDesktop) -> None:
    from cua_bench.sim import ListView
    from cua_core.actions import LongPress, Tap

    window = desktop.open_window("W", 0, 0, 400, 300)
    activated: list[str] = []
    view = window.add(ListView("L", ["one", "two"], on_activate=lambda v: activated.append(v.selected)))
    assert isinstance(view, ListView)
    menu_for: list[str] = []
    view.on_context_menu = lambda v, event: menu_for.append(v.selected)
    act(desktop, LongPress(center(node(desktop, "listitem", "two"))))
    assert menu_for == ["two"]
    act(desktop, Tap(center(node(desktop, "listitem", "one")), clicks=2))
    assert activated == ["one"]
