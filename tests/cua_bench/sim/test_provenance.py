"""The sim desktop's records of what happened (``desktop.provenance``), driven by actions only: where
each character of text came from through edits, undo and the clipboard; what each key and press went
to; which window saved, renamed, deleted or opened which file, and through what."""

from __future__ import annotations

from typing import Any

import pytest

from cua_bench.nodes import center, find
from cua_bench.sim import (
    Button,
    Dropdown,
    EditorApp,
    Origin,
    SimDesktop,
    TextBuffer,
    TextField,
    pasted_from,
    typed_into,
)
from cua_bench.sim.provenance import (
    DELETE,
    FILE_BROWSER,
    MKDIR,
    OPEN,
    PASTED,
    RENAME,
    SAVE,
    SAVE_AS,
    SET,
    TYPED,
    TYPED_HERE,
    Run,
    runs,
)
from cua_core.actions import Action, Click, KeyPress, Point, TypeText, from_pixels

VALUE = "K7QD-2M9X"
DOCS = "/home/user/Documents"


def node(desktop: SimDesktop, role: str, name: str | None = None, **match: Any) -> dict[str, Any]:
    return find(desktop.a11y(), role=role, name=name, **match)


def act(desktop: SimDesktop, *actions: Action) -> None:
    for action in actions:
        assert desktop.apply(action) is None, action


def click(desktop: SimDesktop, role: str, name: str | None = None, clicks: int = 1) -> None:
    act(desktop, Click(center(node(desktop, role, name)), clicks=clicks))


def keys(desktop: SimDesktop, *chord: str) -> None:
    act(desktop, KeyPress(chord))


def into(desktop: SimDesktop, name: str, *chords: str) -> None:
    """Click the text field ``name`` and press ``chords`` (each like ``"ctrl+a"``) there."""
    click(desktop, "textbox", name)
    for chord in chords:
        keys(desktop, *chord.split("+"))


@pytest.fixture
def desktop() -> SimDesktop:
    return SimDesktop()


@pytest.fixture
def fields(desktop: SimDesktop) -> tuple[TextField, TextField]:
    source = desktop.open_window("Record", 0, 0, 400, 200).add(TextField("Source", VALUE))
    target = desktop.open_window("Form", 500, 0, 400, 200).add(TextField("Target", "old"))
    assert isinstance(source, TextField) and isinstance(target, TextField)
    return source, target


def test_a_paste_carries_the_field_it_was_copied_from_and_where_it_was_first_set(
    desktop: SimDesktop, fields: tuple[TextField, TextField]
) -> None:
    source, target = fields
    into(desktop, "Source", "ctrl+a", "ctrl+c")
    into(desktop, "Target", "ctrl+a", "ctrl+v")
    assert target.text == VALUE and desktop.clip.source == source.ref and not desktop.clip.cut
    assert pasted_from(target.origins(), source.ref)
    assert set(target.origins()) == {Origin(PASTED, target.ref, source.ref, Origin(SET, source.ref))}
    assert not pasted_from(target.origins(), target.ref)


@pytest.mark.parametrize("how", ["at once", "in pairs with # and backspace", "backwards with left"])
def test_text_typed_then_copied_and_pasted_over_itself_reads_as_typed(
    desktop: SimDesktop, fields: tuple[TextField, TextField], how: str
) -> None:
    """The red team's ways to type a value without three characters of it in a row: however it was
    typed, the field's text is typed text, and copying and pasting it keeps that."""
    source, target = fields
    into(desktop, "Target", "ctrl+a")
    if how == "at once":
        act(desktop, TypeText(VALUE))
    elif how.startswith("in pairs"):
        for start in range(0, len(VALUE), 2):
            act(desktop, TypeText(VALUE[start : start + 2] + "#"), KeyPress(("backspace",)))
    else:
        for char in reversed(VALUE):
            act(desktop, TypeText(char), KeyPress(("left",)))
    for key in ("a", "c", "v"):
        keys(desktop, "ctrl", key)
    assert target.text == VALUE and desktop.clipboard == VALUE
    assert typed_into(target.origins(), target.ref) and not pasted_from(target.origins(), source.ref)


def test_text_typed_over_the_source_and_copied_from_there_is_not_the_sources_value(
    desktop: SimDesktop, fields: tuple[TextField, TextField]
) -> None:
    source, target = fields
    click(desktop, "textbox", "Source")
    keys(desktop, "ctrl", "a")
    act(desktop, TypeText(VALUE))
    into(desktop, "Source", "ctrl+a", "ctrl+c")
    into(desktop, "Target", "ctrl+a", "ctrl+v")
    assert source.text == target.text == VALUE
    assert all(o.copied_from == source.ref for o in target.origins())
    assert not pasted_from(target.origins(), source.ref)  # first typed into the source, not set there
    assert all(o.first == Origin(TYPED, source.ref) for o in target.origins())


def test_undo_and_redo_bring_back_each_characters_origin_with_the_text(
    desktop: SimDesktop, fields: tuple[TextField, TextField]
) -> None:
    source, target = fields
    into(desktop, "Source", "ctrl+a", "ctrl+c")
    into(desktop, "Target", "end", "ctrl+v")
    act(desktop, TypeText("!"))
    mixed = runs(target.origins())
    assert [(r.start, r.end, r.origin.how) for r in mixed] == [(0, 3, SET), (3, 12, PASTED), (12, 13, TYPED)]
    keys(desktop, "ctrl", "z")
    assert target.text == "old" + VALUE and pasted_from(target.origins()[3:], source.ref)
    keys(desktop, "ctrl", "z")
    assert target.text == "old" and {o.how for o in target.origins()} == {SET}
    keys(desktop, "ctrl", "y")
    keys(desktop, "ctrl", "y")
    assert runs(target.origins()) == mixed


def test_a_cut_and_a_clipboard_set_by_a_program_are_told_apart(
    desktop: SimDesktop, fields: tuple[TextField, TextField]
) -> None:
    source, target = fields
    into(desktop, "Source", "ctrl+a", "ctrl+x")
    assert desktop.clip.cut and desktop.clip.source == source.ref and source.text == ""
    desktop.clipboard = VALUE  # as a task's setup may
    into(desktop, "Target", "ctrl+a", "ctrl+v")
    assert target.text == VALUE and not pasted_from(target.origins(), source.ref)
    assert {(o.copied_from, o.first) for o in target.origins()} == {(None, Origin(SET))}


def test_line_ends_are_cleaned_with_each_characters_origin_kept_in_step() -> None:
    marks = [Origin(TYPED, None, None, Origin(SET)), TYPED_HERE, TYPED_HERE, Origin(SET)]
    area = TextBuffer(multiline=True)
    area.insert("a\r\nb", origin=marks)
    assert area.text == "a\nb" and area.origins == (marks[0], marks[2], marks[3])
    line = TextBuffer("ab")
    line.select(1, 1)
    line.insert("x\ny", origin=TYPED_HERE)
    assert line.text == "ax yb" and line.origins == (Origin(SET), *(TYPED_HERE,) * 3, Origin(SET))
    with pytest.raises(ValueError, match="2 origins for 3 characters"):
        line.insert("abc", origin=marks[:2])


def test_each_key_records_the_window_and_widget_it_went_to(
    desktop: SimDesktop, fields: tuple[TextField, TextField]
) -> None:
    source, target = fields
    click(desktop, "textbox", "Target")
    act(desktop, TypeText("ab"))
    keys(desktop, "ctrl", "a")
    typed = desktop.provenance.keys
    assert [(k.key, k.text, k.window, k.target) for k in typed] == [
        ("a", "a", target.window.id if target.window else None, target.ref),
        ("b", "b", target.ref.window, target.ref),
        ("a", None, target.ref.window, target.ref),
    ]
    assert typed[-1].mods == frozenset({"ctrl"}) and source.ref.window != target.ref.window
    # With a popup open, keys go to the popup's owner.
    window = desktop.open_window("Pick", 100, 300, 300, 200)
    menu = window.add(Dropdown("Size", ["S", "M", "L"]))
    click(desktop, "combobox", "Size")
    keys(desktop, "down")
    assert desktop.provenance.keys[-1].popup and desktop.provenance.keys[-1].target == menu.ref


def test_each_press_records_what_it_hit(desktop: SimDesktop) -> None:
    window = desktop.open_window("Buttons", 100, 100, 400, 200)
    ok = window.add(Button("OK"))
    window.add(Button("Other"))
    click(desktop, "button", "OK")
    keys(desktop, "tab")
    keys(desktop, "space")  # Other, pressed from the keyboard: no press landed on it
    act(desktop, Click(from_pixels(150, 110, desktop.width, desktop.height)))  # the title bar
    act(desktop, Click(from_pixels(1000, 700, desktop.width, desktop.height)))  # no window there
    desktop.open_dialog("Sure?", "Really?", ("Yes", "No"))
    act(desktop, Click(center(node(desktop, "button", "OK"))))  # behind the modal dialog: refused
    hits = [(r.part, r.window, r.target) for r in desktop.provenance.clicks]
    assert hits == [("widget", window.id, ok.ref), ("title", window.id, None), ("desktop", None, None),
                    ("blocked", window.id, None)]  # fmt: skip
    assert len(desktop.provenance.clicks_on(window.id, "OK")) == 1
    assert desktop.provenance.clicks_on(window.id, "Other") == []


def test_a_press_on_an_open_menu_records_the_item(desktop: SimDesktop) -> None:
    editor = desktop.launch("editor")
    click(desktop, "menu", "File")
    click(desktop, "menuitem", "New")
    record = desktop.provenance.clicks[-1]
    assert (record.part, record.window, record.item) == ("popup", editor.id, "New")


def test_file_new_opens_another_untitled_editor(desktop: SimDesktop) -> None:
    first = desktop.launch("editor")
    keys(desktop, "ctrl", "n")
    titles = [(w.title, w.id) for w in desktop.windows()]
    assert [t for t, _ in titles] == ["Untitled - Editor"] * 2 and desktop.focused_window is not first


def _editor(desktop: SimDesktop, window_id: str) -> EditorApp:
    app = desktop.get_window(window_id).data["app"]
    assert isinstance(app, EditorApp)
    return app


def test_editor_saves_record_the_window_the_way_and_where_the_text_came_from(desktop: SimDesktop) -> None:
    app = _editor(desktop, desktop.launch("editor").id)
    act(desktop, TypeText("hello"))
    keys(desktop, "ctrl", "s")  # untitled: the Save As dialog asks
    dialog = desktop.focused_window
    assert dialog is not None and dialog.title == "Save As"
    keys(desktop, "ctrl", "a")
    act(desktop, TypeText(f"{DOCS}/hello.txt", press_enter=True))
    act(desktop, TypeText(" you"))
    keys(desktop, "ctrl", "s")
    first, second = desktop.provenance.files
    assert (first.op, first.path, first.window, first.via, first.dialog) == (SAVE, f"{DOCS}/hello.txt",
                                                                           app.window.id, SAVE_AS, dialog.id)  # fmt: skip
    assert first.text == "hello" and first.origins == (Run(0, 5, Origin(TYPED, app.area.ref)),)
    assert (second.via, second.dialog, second.text) == (SAVE, None, "hello you")
    assert desktop.provenance.last_write(f"{DOCS}/hello.txt") == second


def test_the_file_browser_records_open_rename_delete_and_new_folder(desktop: SimDesktop) -> None:
    desktop.fs.write(f"{DOCS}/a.txt", "a")
    desktop.fs.write(f"{DOCS}/sub/b.txt", "b")
    browser = desktop.launch("files", folder=DOCS)
    click(desktop, "listitem", "a.txt")
    keys(desktop, "f2")
    act(desktop, TypeText(".a.txt", press_enter=True))
    click(desktop, "listitem", "sub")
    keys(desktop, "f2")
    act(desktop, TypeText("moved", press_enter=True))
    click(desktop, "listitem", ".a.txt", clicks=2)  # opens it in the editor
    assert desktop.focused_window is not None and desktop.focused_window.title == ".a.txt - Editor"
    desktop.raise_window(browser)
    click(desktop, "listitem", ".a.txt")
    keys(desktop, "delete")
    click(desktop, "button", "New Folder")
    done = [(r.op, r.path, r.target, r.window, r.via) for r in desktop.provenance.files]
    assert done == [
        (RENAME, f"{DOCS}/a.txt", f"{DOCS}/.a.txt", browser.id, FILE_BROWSER),
        (RENAME, f"{DOCS}/sub", f"{DOCS}/moved", browser.id, FILE_BROWSER),
        (OPEN, f"{DOCS}/.a.txt", None, browser.id, FILE_BROWSER),
        (DELETE, f"{DOCS}/.a.txt", None, browser.id, FILE_BROWSER),
        (MKDIR, f"{DOCS}/New Folder", None, browser.id, FILE_BROWSER),
    ]
    # A file moved with its folder was put where it is by the folder's rename.
    assert desktop.provenance.last_write(f"{DOCS}/moved/b.txt") == desktop.provenance.files[1]
    assert desktop.provenance.last_write(f"{DOCS}/sub/b.txt") is None


def test_clear_forgets_the_records_but_not_where_text_came_from(
    desktop: SimDesktop, fields: tuple[TextField, TextField]
) -> None:
    source, target = fields
    into(desktop, "Source", "ctrl+a", "ctrl+c")
    into(desktop, "Target", "ctrl+a", "ctrl+v")
    act(desktop, Click(Point(999, 999)))
    records = desktop.provenance
    assert records.keys and records.clicks
    records.clear()
    assert not (records.keys or records.clicks or records.files)
    assert pasted_from(target.origins(), source.ref)
