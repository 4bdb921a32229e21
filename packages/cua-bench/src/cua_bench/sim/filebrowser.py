"""A file browser over the virtual file system: list, select, open, rename, delete, new folder.

Rename works the ways people do it: F2, the Rename button, or the right-click menu opens an
in-place field with the whole name selected; typing the new name and enter renames the file in
the VirtualFS, escape cancels, clicking elsewhere commits. Each open, rename, delete and new folder
is recorded on the desktop (``provenance.files``) as this window's, through the file browser.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from cua_bench.sim.controls import Button, Label
from cua_bench.sim.events import KeyEvent
from cua_bench.sim.fs import VirtualFS
from cua_bench.sim.lists import ListView
from cua_bench.sim.menus import MenuItem, open_context_menu
from cua_bench.sim.provenance import DELETE, FILE_BROWSER, MKDIR, OPEN, RENAME, FileRecord
from cua_bench.sim.textwidgets import TextField
from cua_bench.sim.widget import Widget
from cua_bench.sim.windows import Window

__all__ = ["FileBrowser"]


class _FileList(ListView):
    navigates = True

    def __init__(self, browser: FileBrowser, **kw: Any) -> None:
        super().__init__("Files", **kw)
        self._browser = browser

    def on_key(self, event: KeyEvent) -> bool:
        browser = self._browser
        if event.key == "f2" and not event.mods:
            browser.begin_rename()
        elif event.key == "delete" and not event.mods:
            browser.delete_selected()
        elif (event.key == "backspace" and not event.mods) or (event.key == "up" and event.alt):
            browser.go_up()
        else:
            return super().on_key(event)
        return True


class _RenameField(TextField):
    def __init__(self, browser: FileBrowser, text: str, **kw: Any) -> None:
        super().__init__("Rename", text, **kw)
        self._browser = browser

    def on_key(self, event: KeyEvent) -> bool:
        if event.key == "escape" and not event.mods:
            self._browser.end_rename(commit=False)
            return True
        return super().on_key(event)

    def on_focus_change(self, focused: bool) -> None:
        if not focused:
            self._browser.end_rename(commit=True)


class FileBrowser:
    """Builds the browser into ``window``; ``on_open(path)`` opens files (default: the editor)."""

    def __init__(self, window: Window, fs: VirtualFS, folder: str, *,
                 on_open: Callable[[str], Any] | None = None) -> None:  # fmt: skip
        self.window = window
        self.fs = fs
        self.folder = fs.normpath(folder)
        self.on_open = on_open
        self.opened: list[str] = []
        self._renaming: tuple[_RenameField, str] | None = None
        buttons = [Button("Up", lambda _: self.go_up()), Button("Open", lambda _: self.open_selected()),
                   Button("Rename", lambda _: self.begin_rename()), Button("Delete", lambda _: self.delete_selected()),
                   Button("New Folder", lambda _: self.new_folder())]  # fmt: skip
        window.add_row(*buttons)
        self.path_label = Label(self.folder)
        window.add(self.path_label)
        self.list = _FileList(self, on_activate=lambda _: self.open_selected())
        self.list.on_context_menu = self._context_menu
        window.add(self.list, fill=True)
        window.data["refresh"] = self.refresh
        window.data["browser"] = self
        self.refresh()
        window.set_focus(self.list)

    # --- state -----------------------------------------------------------------------------

    @property
    def entries(self) -> list[str]:
        return list(self.list.items)

    @property
    def selected(self) -> str | None:
        return self.list.selected

    def path_of(self, name: str) -> str:
        return posixpath.join(self.folder, name)

    @property
    def selected_path(self) -> str | None:
        name = self.selected
        return None if name is None else self.path_of(name)

    def refresh(self) -> None:
        while not self.fs.is_dir(self.folder):
            self.folder = posixpath.dirname(self.folder)
        names = self.fs.listdir(self.folder)
        icons = ["folder" if self.fs.is_dir(self.path_of(n)) else "file" for n in names]
        self.list.set_items(names, icons)
        self.path_label.text = self.folder
        self.window.title = f"{posixpath.basename(self.folder) or '/'} - Files"

    def select(self, name: str) -> None:
        self.list.select(self.list.items.index(name))

    def _record(self, op: str, path: str, target: str | None = None) -> None:
        desktop = self.window.desktop
        if desktop is not None:
            desktop.provenance.files.append(FileRecord(op, path, self.window.id, FILE_BROWSER, target))

    # --- commands --------------------------------------------------------------------------

    def navigate(self, folder: str) -> None:
        self.folder = self.fs.normpath(folder)
        self.list.selected_index = None
        self.list.set_items([])
        self.refresh()

    def go_up(self) -> None:
        if self.folder != "/":
            child = posixpath.basename(self.folder)
            self.navigate(posixpath.dirname(self.folder))
            if child in self.list.items:
                self.select(child)

    def open_selected(self) -> None:
        path = self.selected_path
        if path is None:
            return
        if self.fs.is_dir(path):
            self.navigate(path)
            return
        self.opened.append(path)
        self._record(OPEN, path)
        if self.on_open is not None:
            self.on_open(path)
        elif self.window.desktop is not None:
            self.window.desktop.launch("editor", path=path)

    def delete_selected(self) -> None:
        path = self.selected_path
        if path is not None:
            index = self.list.selected_index or 0
            self.fs.delete(path)
            self._record(DELETE, path)
            if self.list.items:
                self.list.select(min(index, len(self.list.items) - 1))

    def new_folder(self) -> None:
        name, number = "New Folder", 2
        while self.fs.exists(self.path_of(name)):
            name, number = f"New Folder {number}", number + 1
        self.fs.mkdir(self.path_of(name))
        self._record(MKDIR, self.path_of(name))
        self.select(name)
        self.begin_rename()

    def begin_rename(self) -> None:
        name, index = self.selected, self.list.selected_index
        if name is None or index is None or self._renaming is not None:
            return
        self.list.scroll_to(index)
        row = self.list.row_rect(index)
        field = _RenameField(self, name, x=row.x + 22, y=row.y, width=row.width - 22, height=row.height)
        field.on_submit = lambda _: self.end_rename(commit=True)
        field.buffer.select_all()
        self._renaming = (field, name)
        self.window.add(field)
        self.window.set_focus(field)

    @property
    def rename_field(self) -> TextField | None:
        return None if self._renaming is None else self._renaming[0]

    def end_rename(self, *, commit: bool) -> None:
        if self._renaming is None:
            return
        field, old = self._renaming
        self._renaming = None  # first: removing the field blurs it, which calls back here
        new = field.text.strip()
        self.window.remove(field)
        self.window.set_focus(self.list)
        if not commit or not new or new == old:
            return
        source, target = self.path_of(old), self.fs.normpath(posixpath.join(self.folder, new))
        try:
            self.fs.rename(source, new)
        except (OSError, ValueError) as exc:
            if self.window.desktop is not None:
                self.window.desktop.open_dialog("Cannot rename", f"{old} could not be renamed: {exc}")
            return
        self._record(RENAME, source, target)
        if new in self.list.items:
            self.select(new)

    def _context_menu(self, widget: Widget, event: Any) -> None:
        desktop = self.window.desktop
        if desktop is None or self.selected is None:
            return
        items = [MenuItem("Open", lambda _: self.open_selected()), MenuItem("Rename", lambda _: self.begin_rename()),
                 MenuItem("Delete", lambda _: self.delete_selected())]  # fmt: skip
        open_context_menu(desktop, widget, items, event.sx, event.sy)
