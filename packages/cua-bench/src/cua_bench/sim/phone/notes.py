"""``notes``: the demo phone app. Its root lists the notes; tapping one opens it (its title in a field,
its text in an area, both saved as they are edited; the toolbar's Delete asks, then deletes it), the
root's "+" opens a new note, and back returns to the list. The notes live in the phone's store for
the app (``phone.app_data("notes")["notes"]``, a list of ``{"title", "body"}``), where a task seeds
them and an evaluator reads them."""

from __future__ import annotations

from typing import Any

from cua_bench.sim.lists import ListView
from cua_bench.sim.phone.screens import PhoneApp
from cua_bench.sim.textwidgets import TextArea, TextField

__all__ = ["NotesApp"]

_SAMPLE = (("Groceries", "milk\neggs\nbread"), ("Ideas", "a phone on the sim"), ("Call back", "the dentist"))


class NotesApp(PhoneApp):
    name = "notes"
    label = "Notes"

    @property
    def notes(self) -> list[dict[str, str]]:
        return self.data.setdefault("notes", [{"title": t, "body": b} for t, b in _SAMPLE])  # type: ignore[no-any-return]

    def start(self) -> None:
        root = self.screen("Notes")
        self.list = ListView("Notes", [note["title"] for note in self.notes], on_select=self._picked)
        root.add(self.list, fill=True)
        root.add_action("New note", "+", lambda _: self.new_note())
        self.push(root)

    def _picked(self, view: ListView) -> None:
        index = view.selected_index
        view.selected_index = None  # a tap opens the note; tapping it again after back opens it again
        if index is not None:
            self.open_note(index)

    def _titles(self) -> None:
        self.list.set_items([note["title"] for note in self.notes])

    def open_note(self, index: int) -> None:
        note = self.notes[index]
        screen = self.screen(note["title"])

        def retitled(field: Any) -> None:
            note["title"] = screen.title = field.text
            self._titles()

        def edited(area: Any) -> None:
            note["body"] = area.text

        def delete() -> None:
            self.notes[:] = [kept for kept in self.notes if kept is not note]  # this note, not an equal one
            self._titles()
            self.pop()

        screen.add(TextField("Title", note["title"], on_change=retitled))
        screen.add(TextArea("Note", note["body"], on_change=edited), fill=True)
        screen.add_action("Delete", "Del", lambda _: self.confirm(f'Delete "{note["title"]}"?', "Delete", delete))
        self.push(screen)

    def new_note(self) -> None:
        screen = self.screen("New note")
        title = screen.add(TextField("Title", placeholder="Title"))
        body = screen.add(TextArea("Body"), fill=True)

        def save(_: Any) -> None:
            self.notes.append({"title": title.value or "Untitled", "body": body.value})
            self._titles()
            self.pop()

        screen.add_action("Save", "Save", save)
        self.push(screen)

    def open_target(self, target: str) -> None:
        """``target`` is a note's title: its note opens above the list."""
        titles = [note["title"] for note in self.notes]
        if target in titles:
            while self.pop():
                pass
            self.open_note(titles.index(target))
