"""``files`` ("Files"): a phone's file manager. Its root lists the folders (Documents, Downloads,
Pictures, Music and any made since); tapping one lists its files (a long folder scrolls); tapping a
file (or a long press on it) opens it: its size and folder, and Rename (a Name field and Save), Move
(tap the folder to move it to) and Delete (asks, then moves it to the Trash). The root's toolbar has
"New folder" (a Folder name field and Create) and Trash, which lists the deleted files: tapping one
offers Restore (back to the folder it was deleted from) and "Delete forever" (asks). Back returns a
screen, then closes the app.

The state (``phone.app_data("files")``): ``folders``, a list of ``{"name", "files"}`` in the root's
order with ``files`` a list of ``{"name", "size"}`` in the folder's order (a file moved or restored
goes to the end); ``trash``, the deleted files, oldest first, ``{"name", "size", "folder"}``; and
``rename`` / ``new_folder``, the text in the Name / Folder name field while its screen is open and
edited (gone once it is saved or the screen closes). File names are unique in a folder; the sample's
are unique on the phone. A notification's target is a folder's or a file's name (it opens it) or
``Trash``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from cua_bench.sim.controls import Button, Label
from cua_bench.sim.events import MouseEvent
from cua_bench.sim.lists import ListView
from cua_bench.sim.phone import PhoneApp, Screen, register_phone_app
from cua_bench.sim.textwidgets import TextField
from cua_bench.sim.windows import Window

__all__ = ["FOLDERS", "FilesApp", "file_name", "find_file", "sample"]

FOLDERS = ("Documents", "Downloads", "Pictures", "Music")
File = dict[str, Any]
Folder = dict[str, Any]

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]  # fmt: skip
_STEMS = {
    "Documents": ["report", "invoice", "resume", "budget", "contract", "letter", "minutes", "plan", "receipt", "essay",
                  "agenda", "summary", "proposal", "manual", "notes"],
    "Downloads": ["setup", "ticket", "boarding-pass", "statement", "map", "guide", "backup", "slides", "brochure",
                  "timetable", "menu", "catalog", "form", "poster"],
    "Pictures": ["beach", "birthday", "sunset", "family", "dog", "garden", "concert", "screenshot", "wedding",
                 "mountains", "picnic", "skyline", "snow", "harbour"],
    "Music": ["track", "demo", "mix", "live", "song", "intro", "remix", "podcast", "lullaby", "anthem", "ballad", "jam",
              "session", "medley"],
}  # fmt: skip
_EXTENSIONS = {"Documents": [".pdf", ".docx", ".txt", ".xlsx"], "Downloads": [".zip", ".pdf", ".apk", ".csv"],
               "Pictures": [".jpg", ".png", ".heic"], "Music": [".mp3", ".flac", ".m4a", ".ogg"]}  # fmt: skip
_KB = {"Documents": (12, 4000), "Downloads": (40, 90000), "Pictures": (300, 9000), "Music": (1500, 60000)}


def _size(kb: int) -> str:
    return f"{kb} KB" if kb < 1000 else f"{kb / 1000:.1f} MB"


def file_name(rng: random.Random, folder: str, taken: set[str]) -> str:
    """A new name for a file in ``folder`` (one of ``FOLDERS``: its kind of name), not in ``taken``
    (which it joins): ``budget-march.xlsx``."""
    kind = folder if folder in _STEMS else "Documents"
    stems, extensions = _STEMS[kind], _EXTENSIONS[kind]
    while True:
        name = f"{rng.choice(stems)}-{rng.choice(_MONTHS)}{rng.choice(extensions)}"
        if name not in taken:
            taken.add(name)
            return name


def sample(rng: random.Random, count: int, *, sizes: dict[str, int] | None = None, trash: int = 2) -> dict[str, Any]:
    """The four folders with ``count`` files each (``sizes``: another count for some), and ``trash``
    deleted files from them; every name unique on the phone."""
    taken: set[str] = set()
    folders = []
    for folder in FOLDERS:
        low, high = _KB[folder]
        files = [{"name": file_name(rng, folder, taken), "size": _size(rng.randint(low, high))}
                 for _ in range((sizes or {}).get(folder, count))]  # fmt: skip
        folders.append({"name": folder, "files": files})
    deleted = []
    for _ in range(trash):
        folder = rng.choice(FOLDERS)
        low, high = _KB[folder]
        deleted.append({"name": file_name(rng, folder, taken), "size": _size(rng.randint(low, high)), "folder": folder})
    return {"folders": folders, "trash": deleted}


def find_file(state: dict[str, Any], name: str) -> tuple[str, int] | None:
    """(folder, index) of the file called ``name``, the first found."""
    for folder in state.get("folders", []):
        for index, item in enumerate(folder["files"]):
            if item["name"] == name:
                return folder["name"], index
    return None


def _error() -> Label:
    """A line for what went wrong, shown only once something has."""
    return Label("", color=(170, 30, 30), visible=False)


def _say(error: Label, text: str) -> None:
    error.text = text
    error.visible = True


class _Rows(ListView):
    """A list whose rows are places to go: a tap calls ``on_tap`` with the row's index, a long press
    ``on_hold`` (no selection is kept: a row tapped again after back opens again)."""

    navigates = True

    def __init__(self, name: str, source: Callable[[], list[str]], on_tap: Callable[[int], Any],
                 on_hold: Callable[[int], Any] | None = None, *, icon: str = "") -> None:  # fmt: skip
        super().__init__(name, source(), on_select=self._tapped)
        self.source = source
        self.icon = icon
        self.on_tap = on_tap
        self.on_hold = on_hold
        self.refresh()

    def refresh(self) -> None:
        items = self.source()
        self.set_items(items, [self.icon] * len(items) if self.icon else None)

    def _tapped(self, _: ListView) -> None:
        index = self.selected_index
        self.selected_index = None
        if index is not None:
            self.on_tap(index)

    def on_context(self, event: MouseEvent) -> bool:
        if self.on_hold is None:
            return False
        self.focus()
        index = self.index_at(event.y)
        if index is not None:
            self.on_hold(index)
        return True


@register_phone_app
class FilesApp(PhoneApp):
    name = "files"
    label = "Files"

    # --- the state (read freely; written only when the person changes something) ---------------

    @property
    def folders(self) -> list[Folder]:
        found = self.data.get("folders")
        return found if found is not None else [{"name": name, "files": []} for name in FOLDERS]

    @property
    def trash(self) -> list[File]:
        return list(self.data.get("trash", []))

    def _own_folders(self) -> list[Folder]:
        if "folders" not in self.data:
            self.data["folders"] = self.folders
        folders: list[Folder] = self.data["folders"]
        return folders

    def _own_trash(self) -> list[File]:
        trash: list[File] = self.data.setdefault("trash", [])
        return trash

    def folder(self, name: str) -> Folder | None:
        return next((f for f in self.folders if f["name"] == name), None)

    def _stored_folder(self, name: str) -> Folder:
        return next(f for f in self._own_folders() if f["name"] == name)

    # --- screens -----------------------------------------------------------------------------------

    def start(self) -> None:
        root = self.screen("Files")
        root.add(Label("Tap a folder to open it.", size=12))
        root.add(_Rows("Folders", lambda: [f["name"] for f in self.folders], self._open_folder_at, icon="folder"),
                 fill=True)  # fmt: skip
        root.add_action("Trash", "Bin", lambda _: self.open_trash())
        root.add_action("New folder", "+", lambda _: self.new_folder())
        self.push(root)

    def _refresh(self) -> None:
        for screen in self.stack:
            for widget in screen.all_widgets():
                if isinstance(widget, _Rows):
                    widget.refresh()

    def _pop_to(self, screen: Screen) -> None:
        while self.stack and self.top is not screen and self.pop():
            pass
        self._refresh()

    def _open_folder_at(self, index: int) -> None:
        self.open_folder(self.folders[index]["name"])

    def open_folder(self, name: str) -> Screen:
        screen = self.screen(name)

        def files() -> list[str]:
            found = self.folder(name)
            return [f["name"] for f in found["files"]] if found else []

        def at(index: int) -> None:
            self.open_file(name, files()[index])

        hint = "Tap a file to rename, move or delete it." if files() else "This folder is empty."
        screen.add(Label(hint, size=12))
        screen.add(_Rows(name, files, at, at, icon="file"), fill=True)
        return self.push(screen)

    def open_file(self, folder: str, name: str) -> None:
        found = self.folder(folder)
        item = next((f for f in found["files"] if f["name"] == name), None) if found else None
        if item is None:
            return
        below = self.top
        screen = self.screen(name)
        screen.add(Label(f"Size: {item['size']}"))
        screen.add(Label(f"In: {folder}"))
        screen.add(Button("Rename", lambda _: self.rename(folder, name, below), width=200))
        screen.add(Button("Move", lambda _: self.move(folder, name, below), width=200))
        screen.add(Button("Delete", lambda _: self.delete(folder, name, below), width=200))
        self.push(screen)

    def _draft(self, screen: Window, key: str) -> None:
        """The text typed on ``screen`` lives in the state as ``key`` while the screen is open."""

        def closed(_: Window) -> None:
            self.data.pop(key, None)

        screen.on_close = closed

    def rename(self, folder: str, name: str, below: Screen) -> None:
        screen = self.screen("Rename")
        screen.add(Label(f'New name for "{name}":'))
        field = TextField("Name", name, on_change=lambda f: self.data.__setitem__("rename", f.text))
        screen.add(field)
        error = _error()

        def save() -> None:
            new = field.text.strip()
            files = self._stored_folder(folder)["files"]
            if not new or "/" in new:
                problem = "Type a name (without /)."
            elif new != name and any(f["name"] == new for f in files):
                problem = f'{folder} already has a file named "{new}".'
            else:
                item = next((f for f in files if f["name"] == name), None)
                if item is not None and new != name:
                    item["name"] = new
                self._pop_to(below)
                return
            _say(error, problem)

        field.on_submit = lambda _: save()
        screen.add(Button("Save", lambda _: save(), width=120))
        screen.add(error)
        self._draft(screen, "rename")
        self.push(screen)

    def move(self, folder: str, name: str, below: Screen) -> None:
        screen = self.screen("Move to")
        screen.add(Label(f'Move "{name}" to:'))
        error = _error()

        def targets() -> list[str]:
            return [f["name"] for f in self.folders if f["name"] != folder]

        def chosen(index: int) -> None:
            target = targets()[index]
            files = self._stored_folder(folder)["files"]
            moved = next((f for f in files if f["name"] == name), None)
            destination = self._stored_folder(target)["files"]
            if any(f["name"] == name for f in destination):
                _say(error, f'{target} already has a file named "{name}".')
                return
            if moved is not None:
                files.remove(moved)
                destination.append(moved)
            self._pop_to(below)

        screen.add(error)
        screen.add(_Rows("Move to", targets, chosen, icon="folder"), fill=True)
        self.push(screen)

    def delete(self, folder: str, name: str, below: Screen) -> None:
        def yes() -> None:
            files = self._stored_folder(folder)["files"]
            item = next((f for f in files if f["name"] == name), None)
            if item is not None:
                files.remove(item)
                self._own_trash().append({**item, "folder": folder})
            self._pop_to(below)

        self.confirm(f'Delete "{name}"? It goes to the Trash.', "Delete", yes)

    def new_folder(self) -> None:
        screen = self.screen("New folder")
        field = TextField("Folder name", on_change=lambda f: self.data.__setitem__("new_folder", f.text))
        screen.add(field)
        error = _error()
        root = self.stack[0]

        def create() -> None:
            new = field.text.strip()
            names = [f["name"].casefold() for f in self.folders] + ["trash"]
            if not new or "/" in new:
                _say(error, "Type a name (without /).")
            elif new.casefold() in names:
                _say(error, f'There is already a folder named "{new}".')
            else:
                self._own_folders().append({"name": new, "files": []})
                self._pop_to(root)

        field.on_submit = lambda _: create()
        screen.add(Button("Create", lambda _: create(), width=120))
        screen.add(error)
        self._draft(screen, "new_folder")
        self.push(screen)

    def open_trash(self) -> None:
        screen = self.screen("Trash")
        hint = "Tap a file to restore it." if self.trash else "The Trash is empty."
        screen.add(Label(hint, size=12))

        def at(index: int) -> None:
            self.open_deleted(index, screen)

        screen.add(_Rows("Trash", lambda: [f["name"] for f in self.trash], at, at, icon="file"), fill=True)
        self.push(screen)

    def open_deleted(self, index: int, below: Screen) -> None:
        item = self.trash[index]
        screen = self.screen(item["name"])
        screen.add(Label(f"Size: {item['size']}"))
        screen.add(Label(f"Deleted from: {item['folder']}"))
        error = _error()

        def stored() -> File | None:
            return next((f for f in self._own_trash() if f is item or f == item), None)

        def restore() -> None:
            found = stored()
            if found is None:
                return
            folders = self._own_folders()
            target = next((f for f in folders if f["name"] == found["folder"]), None)
            if target is None:
                target = {"name": found["folder"], "files": []}
                folders.append(target)
            if any(f["name"] == found["name"] for f in target["files"]):
                _say(error, f'{found["folder"]} already has a file named "{found["name"]}".')
                return
            self._own_trash().remove(found)
            target["files"].append({"name": found["name"], "size": found["size"]})
            self._pop_to(below)

        def forever() -> None:
            def yes() -> None:
                found = stored()
                if found is not None:
                    self._own_trash().remove(found)
                self._pop_to(below)

            self.confirm(f'Delete "{item["name"]}" forever?', "Delete forever", yes)

        screen.add(Button("Restore", lambda _: restore(), width=200))
        screen.add(Button("Delete forever", lambda _: forever(), width=200))
        screen.add(error)
        self.push(screen)

    def open_target(self, target: str) -> None:
        """``target``: a folder's name opens the folder, a file's name the file in its folder, and
        ``Trash`` the Trash."""
        while self.pop():
            pass
        if target == "Trash":
            self.open_trash()
        elif self.folder(target) is not None:
            self.open_folder(target)
        elif (found := find_file({"folders": self.folders}, target)) is not None:
            self.open_folder(found[0])
            self.open_file(found[0], target)
