"""The sim desktop's built-in apps: the file browser, the editor and declarative forms."""

from __future__ import annotations

from typing import Any

import pytest

from cua_bench.nodes import center, find
from cua_bench.sim import APPS, EditorApp, SimDesktop, Window, register_app
from cua_core.actions import Action, Click, KeyPress, TypeText


def node(desktop: SimDesktop, role: str, name: str | None = None, **match: Any) -> dict[str, Any]:
    return find(desktop.a11y(), role=role, name=name, **match)


def act(desktop: SimDesktop, *actions: Action) -> None:
    for action in actions:
        assert desktop.apply(action) is None, action


def click(desktop: SimDesktop, role: str, name: str | None = None, clicks: int = 1, button: str = "left") -> None:
    act(desktop, Click(center(node(desktop, role, name)), button=button, clicks=clicks))  # type: ignore[arg-type]


def keys(desktop: SimDesktop, *chord: str) -> None:
    act(desktop, KeyPress(chord))


@pytest.fixture
def desktop() -> SimDesktop:
    desktop = SimDesktop()
    desktop.fs.write("/home/user/Documents/report.txt", "Q3 numbers")
    desktop.fs.write("/home/user/Documents/draft.txt", "draft")
    desktop.fs.mkdir("/home/user/Documents/old")
    return desktop


def test_file_browser_lists_folders_first_with_file_names_as_list_items(desktop: SimDesktop) -> None:
    desktop.launch("files", folder="/home/user/Documents")
    items = node(desktop, "list", "Files")["children"]
    assert [(i["name"], i["value"]) for i in items] == [
        ("old", "folder"),
        ("draft.txt", "file"),
        ("report.txt", "file"),
    ]
    assert node(desktop, "window", "Documents - Files")


def test_rename_with_f2_typing_and_enter_reaches_the_vfs(desktop: SimDesktop) -> None:
    desktop.launch("files", folder="/home/user/Documents")
    click(desktop, "listitem", "report.txt")
    keys(desktop, "f2")
    field = node(desktop, "textbox", "Rename")
    assert field["value"] == "report.txt" and "focused" in field["states"] and "selected" in field["states"]
    act(desktop, TypeText("final.txt", press_enter=True))
    assert desktop.fs.read_text("/home/user/Documents/final.txt") == "Q3 numbers"
    assert not desktop.fs.exists("/home/user/Documents/report.txt")
    assert "selected" in node(desktop, "listitem", "final.txt")["states"]
    assert not desktop.find_all(role="textbox", name="Rename")


def test_rename_with_the_button_escape_cancels_and_the_context_menu_renames(desktop: SimDesktop) -> None:
    desktop.launch("files", folder="/home/user/Documents")
    click(desktop, "listitem", "draft.txt")
    click(desktop, "button", "Rename")
    act(desktop, TypeText("nope.txt"))
    keys(desktop, "escape")
    assert desktop.fs.exists("/home/user/Documents/draft.txt") and not desktop.fs.exists(
        "/home/user/Documents/nope.txt"
    )
    click(desktop, "listitem", "draft.txt", button="right")
    assert [c["name"] for c in node(desktop, "menu")["children"]] == ["Open", "Rename", "Delete"]
    click(desktop, "menuitem", "Rename")
    act(desktop, TypeText("letter.txt", press_enter=True))
    assert desktop.fs.read_text("/home/user/Documents/letter.txt") == "draft"


def test_rename_onto_an_existing_name_shows_an_error_dialog_and_keeps_both(desktop: SimDesktop) -> None:
    desktop.launch("files", folder="/home/user/Documents")
    click(desktop, "listitem", "draft.txt")
    keys(desktop, "f2")
    act(desktop, TypeText("report.txt", press_enter=True))
    assert node(desktop, "dialog", "Cannot rename")
    assert desktop.fs.read_text("/home/user/Documents/draft.txt") == "draft"
    keys(desktop, "enter")
    assert not desktop.find_all(role="dialog")


def test_delete_open_folder_and_go_up(desktop: SimDesktop) -> None:
    window = desktop.launch("files", folder="/home/user/Documents")
    click(desktop, "listitem", "draft.txt")
    keys(desktop, "delete")
    assert not desktop.fs.exists("/home/user/Documents/draft.txt")
    assert "draft.txt" not in [i["name"] for i in node(desktop, "list", "Files")["children"]]
    click(desktop, "listitem", "old", clicks=2)
    assert window.data["browser"].folder == "/home/user/Documents/old"
    assert node(desktop, "label", "/home/user/Documents/old")
    keys(desktop, "backspace")
    assert window.data["browser"].folder == "/home/user/Documents"
    assert "selected" in node(desktop, "listitem", "old")["states"]


def test_opening_a_file_from_the_browser_starts_the_editor_on_it(desktop: SimDesktop) -> None:
    desktop.launch("files", folder="/home/user/Documents")
    click(desktop, "listitem", "report.txt", clicks=2)
    editor = desktop.focused_window
    assert editor is not None and editor.app == "editor" and editor.title == "report.txt - Editor"
    assert node(desktop, "textbox", "Editor")["value"] == "Q3 numbers"


def test_files_update_when_the_vfs_changes_elsewhere(desktop: SimDesktop) -> None:
    desktop.launch("files", folder="/home/user/Documents")
    desktop.fs.write("/home/user/Documents/new.txt", "")
    assert "new.txt" in [i["name"] for i in node(desktop, "list", "Files")["children"]]


def test_editor_marks_unsaved_changes_and_ctrl_s_saves_to_the_vfs(desktop: SimDesktop) -> None:
    window = desktop.launch("editor", path="/home/user/Documents/report.txt")
    assert window.title == "report.txt - Editor"
    keys(desktop, "ctrl", "end")
    act(desktop, TypeText("\nQ4 numbers"))
    assert window.title == "*report.txt - Editor"
    assert node(desktop, "window", "*report.txt - Editor")
    assert desktop.fs.read_text("/home/user/Documents/report.txt") == "Q3 numbers"
    keys(desktop, "ctrl", "s")
    assert desktop.fs.read_text("/home/user/Documents/report.txt") == "Q3 numbers\nQ4 numbers"
    assert window.title == "report.txt - Editor"


def test_editor_save_from_the_file_menu_and_save_as_for_a_new_file(desktop: SimDesktop) -> None:
    window = desktop.launch("editor", text="")
    app = window.data["app"]
    assert isinstance(app, EditorApp) and window.title == "Untitled - Editor"
    act(desktop, TypeText("shopping list"))
    click(desktop, "menu", "File")
    click(desktop, "menuitem", "Save")
    dialog = node(desktop, "dialog", "Save As")
    assert find([dialog], role="textbox", name="File name")["value"] == "/home/user/Documents/untitled.txt"
    keys(desktop, "ctrl", "a")
    act(desktop, TypeText("/home/user/list.txt", press_enter=True))
    assert desktop.fs.read_text("/home/user/list.txt") == "shopping list"
    assert window.title == "list.txt - Editor" and app.path == "/home/user/list.txt"
    # The Edit menu works on the text too.
    click(desktop, "menu", "Edit")
    click(desktop, "menuitem", "Select All")
    click(desktop, "menu", "Edit")
    click(desktop, "menuitem", "Copy")
    assert desktop.clipboard == "shopping list"


def test_form_spec_builds_inputs_and_submit_records_values(desktop: SimDesktop) -> None:
    submitted: list[dict[str, Any]] = []
    window = desktop.launch(
        "form",
        title="Sign up",
        widgets=[
            {"type": "label", "text": "Create an account"},
            {"type": "textfield", "name": "Email", "placeholder": "you@example.com"},
            {"type": "checkbox", "name": "Subscribe"},
            {"type": "radio", "name": "Plan", "options": ["Free", "Pro"], "value": "Free"},
            {"type": "dropdown", "name": "Country", "options": ["France", "Peru"]},
            {"type": "slider", "name": "Age", "min": 18, "max": 99, "value": 30},
            {"type": "row", "items": [{"type": "button", "name": "Submit", "default": True},
                                      {"type": "button", "name": "Cancel", "action": "close"}]},
        ],
        on_submit=submitted.append,
    )  # fmt: skip
    assert node(desktop, "label", "Create an account") and node(desktop, "label", "Email")
    click(desktop, "textbox", "Email")
    act(desktop, TypeText("ada@example.com"))
    click(desktop, "checkbox", "Subscribe")
    click(desktop, "radio", "Pro")
    click(desktop, "combobox", "Country")
    click(desktop, "listitem", "Peru")
    click(desktop, "button", "Submit")
    expected = {"Email": "ada@example.com", "Subscribe": True, "Plan": "Pro", "Country": "Peru", "Age": 30}
    assert window.data["submitted"] == expected and submitted == [expected]
    click(desktop, "button", "Cancel")
    assert window.closed and window not in desktop.windows()


def test_form_rejects_unknown_widget_types_and_bad_button_actions(desktop: SimDesktop) -> None:
    with pytest.raises(ValueError, match="unknown form widget type 'wheel'"):
        desktop.launch("form", widgets=[{"type": "wheel"}])
    with pytest.raises(ValueError, match="action 'explode'"):
        desktop.launch("form", widgets=[{"type": "button", "name": "B", "action": "explode"}])


def test_app_registry_launch_unknown_and_duplicates(desktop: SimDesktop) -> None:
    with pytest.raises(LookupError, match="known apps: editor, files, form"):
        desktop.launch("browser")

    def hello(d: SimDesktop, greeting: str = "hi") -> Window:
        return d.open_window(greeting, app="hello")

    register_app("hello-test", hello)
    try:
        assert desktop.launch("hello-test", greeting="hey").title == "hey"
        with pytest.raises(ValueError, match="already registered"):
            register_app("hello-test", hello)
    finally:
        APPS.pop("hello-test", None)


def test_form_builds_every_widget_type_with_its_role(desktop: SimDesktop) -> None:
    types = {
        "label": "label", "textfield": "textbox", "textarea": "textbox", "checkbox": "checkbox",
        "radio": "radiogroup", "dropdown": "combobox", "list": "list", "slider": "slider", "button": "button",
        "draggable": "draggable", "droptarget": "droptarget",
    }  # fmt: skip
    specs = [{"type": kind, "name": f"{kind} widget", "options": ["a"], "items": ["b"]} for kind in types]
    desktop.launch("form", title="All", widgets=specs, width=500)
    for kind, role in types.items():
        assert node(desktop, role, f"{kind} widget"), kind
    # Evaluators read state from the widgets themselves.
    assert desktop.find(role="slider", name="slider widget").value == 0
    assert desktop.find(role="checkbox", name="checkbox widget").value is False
    assert desktop.find(role="droptarget", name="droptarget widget").value == []
