"""What the sim desktop saw happen: where each character of text came from, and who did what.

An instruction that names a method ("copy and paste", "using Save As", "in the file browser") or a
window ("in the Untitled window") is scored on these records, never on a guess from the keys in
the action log: a guess can be dodged (type the value in pairs, or backwards), an observation
cannot. The desktop writes them as it delivers each event, in its own memory, where an agent (which
only sends actions) cannot reach them.

Text keeps its provenance through edits: every character of a text widget carries an ``Origin``
(typed into it, pasted into it, or set by a program), undo and redo restore them with the text, and
the clipboard carries the origins of what was copied, so text typed, copied and pasted elsewhere
still reads as typed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "DELETE",
    "FILE_BROWSER",
    "MKDIR",
    "OPEN",
    "PASTED",
    "RENAME",
    "SAVE",
    "SAVE_AS",
    "SET",
    "SET_HERE",
    "TYPED",
    "TYPED_HERE",
    "ClickRecord",
    "Clip",
    "FileRecord",
    "KeyRecord",
    "Origin",
    "Provenance",
    "Run",
    "WidgetRef",
    "new_serial",
    "pasted_from",
    "runs",
    "typed_into",
]

# How a character came to be where it is.
SET = "set"  # put there by a program: the task's setup, or an app loading a file
TYPED = "typed"  # a key press typed it into the widget
PASTED = "pasted"  # a paste put it into the widget

# What a file record did, and through what.
SAVE, RENAME, DELETE, MKDIR, OPEN = "save", "rename", "delete", "mkdir", "open"
SAVE_AS = "save as"  # an editor's Save As dialog (``SAVE`` as a ``via``: File > Save or ctrl+s)
FILE_BROWSER = "file browser"

_SERIALS = itertools.count(1)


def new_serial() -> int:
    """A number no other widget of this process has: a widget's identity in the records."""
    return next(_SERIALS)


@dataclass(frozen=True, slots=True)
class WidgetRef:
    """A widget as the records name it. Two refs are the same widget when their serials are (the
    window id and name are for people reading a record; a name may repeat in a window)."""

    window: str = field(compare=False)
    name: str = field(compare=False)
    serial: int

    def __str__(self) -> str:
        return f"{self.window or '?'}/{self.name or '?'}#{self.serial}"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where one character came from: ``how`` (``SET``, ``TYPED`` or ``PASTED``) into the widget
    ``into``; for a paste, the widget the clipboard was copied from (``copied_from``, None when a
    program set the clipboard) and ``root``, where the character was first set or typed before any
    paste. A widget keeps its own characters' origins with ``into`` None (itself) and fills it in
    when they leave it (a copy, an evaluator's question)."""

    how: str
    into: WidgetRef | None = None
    copied_from: WidgetRef | None = None
    root: Origin | None = None

    @property
    def first(self) -> Origin:
        """Where the character was first set or typed, through every paste since."""
        return self.root or self


SET_HERE = Origin(SET)
TYPED_HERE = Origin(TYPED)


@dataclass(frozen=True, slots=True)
class Run:
    """Characters ``start`` to ``end`` (excluded) of a text, all of one origin."""

    start: int
    end: int
    origin: Origin


def runs(origins: Sequence[Origin]) -> tuple[Run, ...]:
    """Per-character origins as runs: what a record keeps (a saved file is a few runs, not one
    origin per character)."""
    found: list[Run] = []
    start = 0
    for index in range(1, len(origins) + 1):
        if index == len(origins) or origins[index] != origins[start]:
            found.append(Run(start, index, origins[start]))
            start = index
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Clip:
    """The clipboard: its text, each character's origin, and the widget it was copied (or cut, with
    ``cut``) from; ``source`` None when a program set it."""

    text: str
    origins: tuple[Origin, ...]
    source: WidgetRef | None = None
    cut: bool = False

    @classmethod
    def set_by_program(cls, text: str) -> Clip:
        return cls(text, (SET_HERE,) * len(text))


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """One key event and where it went: the window (its id) and the widget focused there (or, with
    ``popup``, the widget owning the open popup). ``text`` is the character it typed, if any."""

    key: str
    mods: frozenset[str]
    text: str | None
    window: str | None
    target: WidgetRef | None
    popup: bool = False


@dataclass(frozen=True, slots=True)
class ClickRecord:
    """One button press and what it hit. ``part``: ``widget`` (``target``, or None for the
    window's background), ``title`` or ``close`` (the title bar and its close button), ``popup``
    (``item`` is the row's label, ``target`` the popup's owner), ``outside popup`` (a press that
    only closed the popup), ``taskbar``, ``blocked`` (on a window behind a modal dialog) or
    ``desktop``, or a phone's ``status bar`` or ``nav bar``. ``at`` is in screen pixels. ``touch`` names
    the touch gesture that made the press (``tap``, ``long_press``, ``swipe``; None for a mouse)."""

    button: str
    count: int
    at: tuple[int, int]
    part: str
    window: str | None = None
    target: WidgetRef | None = None
    item: str | None = None
    touch: str | None = None


@dataclass(frozen=True, slots=True)
class FileRecord:
    """A change an app made to the file system (or a file it opened): ``op`` (``SAVE``, ``RENAME``,
    ``DELETE``, ``MKDIR``, ``OPEN``) on ``path`` (``target``: a rename's new path), by the window
    ``window`` through ``via`` (``SAVE``, ``SAVE_AS`` with its dialog's id, ``FILE_BROWSER``). A
    save keeps the text it wrote and where each run of it came from."""

    op: str
    path: str
    window: str
    via: str
    target: str | None = None
    dialog: str | None = None
    text: str | None = None
    origins: tuple[Run, ...] = ()


class Provenance:
    """The desktop's records of this episode, each list in the order things happened."""

    def __init__(self) -> None:
        self.keys: list[KeyRecord] = []
        self.clicks: list[ClickRecord] = []
        self.files: list[FileRecord] = []

    def clear(self) -> None:
        """Forget what happened so far (a task's setup calls it last: its own doings are not the agent's)."""
        self.keys.clear()
        self.clicks.clear()
        self.files.clear()

    def writes(self, path: str) -> list[FileRecord]:
        """The records that put something at ``path``: a save to it, a folder made there, a rename
        onto it or onto a folder above it."""

        def onto(target: str | None) -> bool:
            return target is not None and (path == target or path.startswith(target.rstrip("/") + "/"))

        return [
            r for r in self.files if (r.op in (SAVE, MKDIR) and r.path == path) or (r.op == RENAME and onto(r.target))
        ]

    def last_write(self, path: str) -> FileRecord | None:
        """What last put ``path`` where it is (None: nothing this episode did)."""
        found = self.writes(path)
        return found[-1] if found else None

    def clicks_on(self, window: str, name: str) -> list[ClickRecord]:
        """The left-button presses that landed on the widget ``name`` of the window ``window`` (its
        id): what "click X" asks for, and what pressing X from the keyboard leaves none of."""
        return [
            r for r in self.clicks
            if r.part == "widget" and r.button == "left" and r.window == window and r.target and r.target.name == name
        ]  # fmt: skip


def pasted_from(origins: Iterable[Origin], source: WidgetRef) -> bool:
    """Every character was pasted from a clipboard copied (or cut) from ``source``, where it had
    been set by a program (the value the task put there, not text the agent typed into it)."""
    return all(
        o.how == PASTED and o.copied_from == source and o.first.how == SET and o.first.into == source for o in origins
    )


def typed_into(origins: Iterable[Origin], widget: WidgetRef) -> bool:
    """Every character was typed into ``widget`` (and stayed there, or came back by a paste)."""
    return all(o.first.how == TYPED and o.first.into == widget for o in origins)
