"""Built-in apps and the app registry: ``editor``, ``files`` and ``form``.

``form`` builds a window from a small declarative spec, so a task can set up a UI in a few lines:

    desktop.launch("form", title="Sign up", widgets=[
        {"type": "textfield", "name": "Email"},
        {"type": "checkbox", "name": "Subscribe"},
        {"type": "button", "name": "Submit", "default": True},
    ])

Its submit buttons record the form's values in ``window.data["submitted"]``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cua_bench.sim.controls import Button, Checkbox, Label, RadioGroup, Slider
from cua_bench.sim.dnd import Draggable, DropTarget
from cua_bench.sim.events import KeyEvent
from cua_bench.sim.filebrowser import FileBrowser
from cua_bench.sim.lists import Dropdown, ListView
from cua_bench.sim.menus import Menu, MenuBar, MenuItem
from cua_bench.sim.provenance import SAVE, SAVE_AS, FileRecord, runs
from cua_bench.sim.textwidgets import TextArea, TextField
from cua_bench.sim.widget import Widget
from cua_bench.sim.windows import TITLE_HEIGHT, Dialog, Window

if TYPE_CHECKING:
    from cua_bench.sim.desktop import SimDesktop

__all__ = ["APPS", "EditorApp", "form_values", "input_widgets", "launch_app", "register_app"]

AppFactory = Callable[..., Window]


class EditorApp:
    """The text editor: a File and an Edit menu over a text area; ``ctrl+s`` saves to ``path``,
    ``ctrl+n`` opens another (untitled) editor.

    The title starts with ``*`` while there are unsaved changes. Each save is recorded on the
    desktop (``provenance.files``): this window, Save or the Save As dialog, and the text written
    with where each run of it came from.
    """

    def __init__(self, desktop: SimDesktop, path: str | None = None, text: str | None = None, *,
                 x: int | None = None, y: int | None = None, width: int = 640, height: int = 460) -> None:  # fmt: skip
        fs = desktop.fs
        self.desktop = desktop
        self.path = fs.normpath(path) if path else None
        if text is None:
            text = fs.read_text(self.path) if self.path and fs.is_file(self.path) else ""
        self.modified = False
        self.saves = 0
        self.window = desktop.open_window("", x, y, width, height, app="editor")
        file_menu = Menu("File", [MenuItem("New", lambda _: desktop.launch("editor"), shortcut="ctrl+n"),
                                  MenuItem("Save", lambda _: self.save(), shortcut="ctrl+s"),
                                  MenuItem("Save As...", lambda _: self.ask_path(), shortcut="ctrl+shift+s"),
                                  MenuItem.separator(),
                                  MenuItem("Close", lambda _: self.window.close(), shortcut="ctrl+w")])  # fmt: skip
        edit_menu = Menu("Edit", [MenuItem(label, self._edit_key(key), shortcut=f"ctrl+{key}") for label, key in
                                  (("Undo", "z"), ("Redo", "y"), ("Cut", "x"), ("Copy", "c"), ("Paste", "v"),
                                   ("Select All", "a"))])  # fmt: skip
        self.window.add(MenuBar([file_menu, edit_menu]))
        self.area = TextArea("Editor", text, accepts_tab=True, on_change=lambda _: self._set_modified(True))
        self.area.buffer.set_caret(0)
        self.window.add(self.area, fill=True)
        self.window.data["app"] = self
        self.window.set_focus(self.area)
        self._retitle()

    @property
    def text(self) -> str:
        return self.area.text

    def _edit_key(self, key: str) -> Callable[[MenuItem], None]:
        def run(_: MenuItem) -> None:
            self.area.on_key(KeyEvent(key, frozenset({"ctrl"})))

        return run

    def _set_modified(self, modified: bool) -> None:
        self.modified = modified
        self._retitle()

    def _retitle(self) -> None:
        name = posixpath.basename(self.path) if self.path else "Untitled"
        self.window.title = f"{'*' if self.modified else ''}{name} - Editor"

    def save(self, *, via: str = SAVE, dialog: str | None = None) -> None:
        """Write the text to ``path`` (an untitled editor asks for one with the Save As dialog)."""
        if self.path is None:
            self.ask_path()
            return
        text = self.area.text
        self.desktop.fs.write(self.path, text)
        self.desktop.provenance.files.append(FileRecord(SAVE, self.path, self.window.id, via, dialog=dialog, text=text,
                                                        origins=runs(self.area.origins())))  # fmt: skip
        self.saves += 1
        self._set_modified(False)

    def save_as(self, path: str, *, dialog: str | None = None) -> None:
        """Save under ``path`` from now on (``dialog``: the Save As dialog that asked, for the record)."""
        self.path = self.desktop.fs.normpath(path)
        self.save(via=SAVE_AS, dialog=dialog)

    def ask_path(self) -> Dialog:
        """The Save As dialog: a file name field, Save and Cancel."""
        default = self.path or posixpath.join(self.desktop.fs.home, "Documents", "untitled.txt")
        dialog = Dialog("Save As", (self.desktop.width - 420) // 2, self.desktop.height // 3, 420, 150)
        field = TextField("File name", default)
        dialog.add(field, label="File name")
        field.buffer.select_all()

        def finish(button: Button) -> None:
            if button.label == "Save" and field.text.strip().startswith("/"):
                path = field.text.strip()
                dialog.finish("Save")
                self.save_as(path, dialog=dialog.id)
            elif button.label == "Cancel":
                dialog.finish(None)

        dialog.add_row(Button("Save", finish, default=True), Button("Cancel", finish), align="right")
        self.desktop.add_window(dialog)
        dialog.set_focus(field)
        return dialog


def editor(desktop: SimDesktop, **params: Any) -> Window:
    return EditorApp(desktop, **params).window


def files(desktop: SimDesktop, folder: str | None = None, *, x: int | None = None, y: int | None = None,
          width: int = 560, height: int = 420, on_open: Callable[[str], Any] | None = None) -> Window:  # fmt: skip
    window = desktop.open_window("Files", x, y, width, height, app="files")
    FileBrowser(window, desktop.fs, folder or desktop.fs.home, on_open=on_open)
    return window


# --- form --------------------------------------------------------------------------------

_LABELLED = {"textfield", "textarea", "dropdown", "slider", "list", "radio"}
_ALIASES = {"texteditor": "textarea", "textbox": "textfield", "combobox": "dropdown", "select": "dropdown",
            "radiogroup": "radio", "listview": "list", "text": "label"}  # fmt: skip


def input_widgets(windows: Iterable[Window]) -> dict[tuple[str, int], Widget]:
    """Every input (``Widget.is_input``) of ``windows``, by (window id, its place among the window's widgets):
    the key evaluators and the adversary both use for "the same input"."""
    return {
        (window.id, index): widget
        for window in windows
        for index, widget in enumerate(window.all_widgets())
        if widget.is_input
    }


def form_values(window: Window) -> dict[str, Any]:
    """Each named input's value: text, checked, selected option, slider value, dropped items."""
    values: dict[str, Any] = {}
    for widget in window.all_widgets():
        if widget.is_input:
            values[widget.name] = widget.value
    return values


def _build(spec: Mapping[str, Any], window: Window) -> Widget:
    kind = _ALIASES.get(str(spec.get("type", "")).lower(), str(spec.get("type", "")).lower())
    name = str(spec.get("name", spec.get("text", "")))
    common = {k: spec[k] for k in ("x", "y", "width", "height", "enabled", "visible") if k in spec}
    if kind == "label":
        return Label(str(spec.get("text", name)), **common)
    if kind == "textfield":
        return TextField(name, str(spec.get("value", "")), placeholder=str(spec.get("placeholder", "")), **common)
    if kind == "textarea":
        return TextArea(name, str(spec.get("value", "")), placeholder=str(spec.get("placeholder", "")), **common)
    if kind == "checkbox":
        return Checkbox(name, bool(spec.get("checked", False)), **common)
    if kind == "radio":
        return RadioGroup(name, spec.get("options", ()), spec.get("value"), **common)
    if kind == "dropdown":
        return Dropdown(name, spec.get("options", ()), spec.get("value"), **common)
    if kind == "list":
        items = list(spec.get("items", ()))
        selected = items.index(spec["value"]) if spec.get("value") in items else None
        return ListView(name, items, selected=selected, **common)
    if kind == "slider":
        return Slider(name, spec.get("min", 0), spec.get("max", 100), spec.get("value"), spec.get("step", 1), **common)
    if kind == "draggable":
        return Draggable(name, **common)
    if kind == "droptarget":
        return DropTarget(name, **common)
    if kind == "button":
        action = str(spec.get("action", "submit"))
        if action not in ("submit", "close", "submit_close", "none"):
            raise ValueError(f"form button {name!r}: action {action!r} is not submit, close, submit_close or none")

        def press(button: Button) -> None:
            if action in ("submit", "submit_close"):
                values = form_values(window)
                window.data.setdefault("submissions", []).append(values)
                window.data["submitted"] = values
                window.data["submitted_by"] = button.name
                callback = window.data.get("on_submit")
                if callable(callback):
                    callback(values)
            if action in ("close", "submit_close"):
                window.close()

        return Button(name, press, default=bool(spec.get("default", False)), **common)
    raise ValueError(f"unknown form widget type {spec.get('type')!r}; known: label, textfield, textarea, checkbox, "
                     "radio, dropdown, list, slider, button, draggable, droptarget, row")  # fmt: skip


def form(desktop: SimDesktop, title: str = "Form", widgets: Sequence[Mapping[str, Any]] = (), *,
         x: int | None = None, y: int | None = None, width: int = 480, height: int | None = None,
         on_submit: Callable[[dict[str, Any]], Any] | None = None, app: str = "form") -> Window:  # fmt: skip
    """A window of widgets from specs; ``{"type": "row", "items": [...]}`` puts specs side by side.

    Inputs get a caption on their left (their ``name``, or ``"label"`` when given; ``"label":
    false`` for none). Without ``height`` the window fits its content.
    """
    window = Window(title, 0, 0, width, height or desktop.height, app=app)
    window.data["on_submit"] = on_submit
    for spec in widgets:
        if str(spec.get("type", "")).lower() == "row":
            window.add_row(*(_build(item, window) for item in spec.get("items", ())))
            continue
        widget = _build(spec, window)
        kind = _ALIASES.get(str(spec.get("type", "")).lower(), str(spec.get("type", "")).lower())
        caption = spec.get("label", widget.name if kind in _LABELLED else None)
        if kind == "button" and "x" not in spec:
            window.add_row(widget)
        else:
            window.add(widget, label=str(caption) if caption else None)
    if height is None:
        bottom = max([w.rect.bottom for w in window.all_widgets()] or [TITLE_HEIGHT])
        window.rect.height = min(desktop.work_area.height, bottom + window.padding)
    cx, cy = desktop._cascade(window.rect.width, window.rect.height)
    window.rect.x, window.rect.y = cx if x is None else x, cy if y is None else y
    desktop.add_window(window)
    return window


APPS: dict[str, AppFactory] = {"editor": editor, "files": files, "form": form}


def register_app(name: str, factory: AppFactory, *, replace: bool = False) -> None:
    """Add an app that ``launch`` can start: ``factory(desktop, **params) -> Window``."""
    if name in APPS and not replace:
        raise ValueError(f"an app named {name!r} is already registered (pass replace=True to override it)")
    APPS[name] = factory


def launch_app(desktop: SimDesktop, app: str, **params: Any) -> Window:
    factory = APPS.get(app)
    if factory is None:
        raise LookupError(f"no sim app {app!r}; known apps: {', '.join(sorted(APPS))}")
    return factory(desktop, **params)
