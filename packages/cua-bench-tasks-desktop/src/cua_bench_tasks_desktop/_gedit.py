"""What the gedit tasks share: gedit's titles, its setup, and the oracle's moves in its menus and dialogs.

Not a task folder (no ``main.py``). gedit 44 (GTK 3) exposes its widgets on the accessibility bus, so
oracles find its hamburger menu's items, the Find and Replace dialog's fields and buttons, the Sort
dialog's boxes and the Save As dialog's Line Ending list in the tree (``session.accessibility_tree``)
and click them where they are, as a person finds them on screen.

gedit's title is ``NAME (~/FOLDER) - gedit``, with a leading ``*`` while there are unsaved changes,
and ``Untitled Document N - gedit`` before a new document is saved.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from cua_bench import Session, Task, TaskError
from cua_bench.nodes import center, walk
from cua_bench_tasks_desktop._common import (
    act,
    key,
    listing,
    no_window,
    open_dialog,
    remember_files,
    start,
    submit_dialog,
    wait_for,
    window,
    write_files,
)
from cua_core import Click, Wait

__all__ = [
    "APP",
    "LINE_ENDINGS",
    "UNTITLED",
    "click_node",
    "find_node",
    "from_menu",
    "open_in_gedit",
    "save",
    "save_as",
    "shown_folder",
    "title",
]

APP = "gedit"
UNTITLED = "Untitled Document 1 - gedit"
"""The title of the document gedit opens when started without a file."""
SPELL_FILES = ".config/enchant"
"""The spell-check plugin's word lists, which gedit creates shortly after it starts."""

Node = dict[str, Any]


def shown_folder(path: str) -> str:
    """The folder of ``path`` (relative to home) as gedit's title shows it: ``~`` or ``~/notes``."""
    return "~/" + path.rsplit("/", 1)[0] if "/" in path else "~"


def title(path: str, *, clean: bool = True) -> Callable[[str], bool]:
    """gedit's title while it shows ``~/path``; with ``clean``, only once it is saved (no leading ``*``)."""
    shown = f"{path.rsplit('/', 1)[-1]} ({shown_folder(path)}) - {APP}"

    def accepts(name: str) -> bool:
        return name == shown or (not clean and name == f"*{shown}")

    return accepts


async def open_in_gedit(task: Task, session: Session, files: dict[str, str], path: str | None) -> None:
    """Setup: ``files`` written, gedit showing ``~/path`` (a new document when None), and the files
    under home remembered once gedit has made its spell checker's word lists (made a moment after its
    window shows: made later, they would count as the agent's change)."""
    await write_files(session, files)
    await start(session, APP, *([path] if path else []), title=title(path) if path else UNTITLED, timeout=40)

    async def spell_files() -> bool:
        return bool(await listing(session, SPELL_FILES))

    with contextlib.suppress(TaskError):  # a gedit without the spell plugin makes none: nothing to wait for
        await wait_for(spell_files, "gedit's spell checker", timeout=15)
    await act(session, Wait(0.5))
    await remember_files(task, session)


async def find_node(session: Session, role: str, name: str | None = None, state: str | None = None) -> Node | None:
    """The first showing widget of ``role`` (named ``name``, in ``state``), front window first."""
    for node in walk(await session.accessibility_tree()):
        if node.get("role") != role or (name is not None and node.get("name") != name):
            continue
        if node.get("bounds") and (state is None or state in (node.get("states") or [])):
            return node
    return None


async def click_node(session: Session, role: str, name: str, state: str | None = None) -> Node:
    """Wait for the widget and click its middle; the widget as it was found."""
    node = await wait_for(lambda: find_node(session, role, name, state), f"the {role} {name!r}")
    await act(session, Click(center(node)))
    return node


async def _hamburger(session: Session) -> Node | None:
    """The main window's menu button: the right-most "Menu" toggle (the other opens recent files)."""
    found = [
        node
        for node in walk(await session.accessibility_tree())
        if node.get("role") == "toggle button" and node.get("name") == "Menu" and node.get("bounds")
    ]
    return max(found, key=lambda node: node["bounds"][0], default=None)


async def from_menu(session: Session, *items: str) -> None:
    """The main menu opened and ``items`` clicked in turn ("Tools", "Sort…"); a menu that did not
    open on the first click (a click while the window took the focus) is clicked again."""
    for _attempt in range(3):
        button = await wait_for(lambda: _hamburger(session), "gedit's menu button")
        await act(session, Click(center(button)))
        try:
            await wait_for(lambda: find_node(session, "push button", items[0]), items[0], timeout=5)
            break
        except TaskError:
            await act(session, key("escape"))
    for item in items:
        await click_node(session, "push button", item)


async def save(session: Session, path: str) -> None:
    """ctrl+s once the title shows unsaved changes, and the wait for the saved title."""
    await window(session, lambda name: name.startswith("*") and title(path, clean=False)(name))
    await act(session, key("ctrl+s"))
    await window(session, title(path))


LINE_ENDINGS = ("Unix/Linux", "Mac OS Classic", "Windows")
"""The Save As dialog's Line Ending choices, as it names them."""


async def save_as(session: Session, path: str, *, combo: str = "ctrl+shift+s", line_ending: str | None = None) -> None:
    """Save As (``combo``: ctrl+s for a new document) under ``~/path``, with ``line_ending`` chosen in
    the dialog's Line Ending list when given, and the wait for gedit's title to show the saved file."""
    await open_dialog(session, combo, "Save As")
    await window(session, "Save As")
    if line_ending is not None:
        for _attempt in range(3):
            current = _current_line_ending(await session.accessibility_tree())
            if current == line_ending:
                break
            # The list's popup takes keys, not a click that comes right after it opened: down to the choice.
            await click_node(session, "combo box", current)
            try:
                await wait_for(lambda: find_node(session, "menu item", line_ending), "the list to open", timeout=5)
            except TaskError:
                continue
            await _highlight(session, line_ending)
            await act(session, key("enter"))
        await wait_for(lambda: find_node(session, "combo box", line_ending), f"the line ending {line_ending}")
        # The list leaves the focus on itself: the name field takes it back before it is filled.
        name_field = await wait_for(lambda: find_node(session, "text", state="editable"), "the name field")
        await act(session, Click(center(name_field)))
    await submit_dialog(session, "Save As", f"~/{path}")
    await no_window(session, "Save As")
    await window(session, title(path))


async def _highlight(session: Session, item: str) -> None:
    """Arrow keys in the open list until the tree shows ``item`` highlighted (selected): where the
    highlight starts depends on where the pointer was, so each key is checked, not counted."""
    for _press in range(2 * len(LINE_ENDINGS)):
        tree = await session.accessibility_tree()
        lit = next(
            (n["name"] for n in walk(tree) if n.get("role") == "menu item" and "selected" in (n.get("states") or [])),
            None,
        )
        if lit == item:
            return
        before = LINE_ENDINGS.index(lit) < LINE_ENDINGS.index(item) if lit in LINE_ENDINGS else True
        await act(session, key("down" if before else "up"))
    raise TaskError(f"the list would not highlight {item!r}")


def _current_line_ending(tree: list[Node]) -> str:
    """The name of the Line Ending list (it is named after its current choice)."""
    for node in walk(tree):
        if node.get("role") == "combo box" and node.get("name") in LINE_ENDINGS:
            return str(node["name"])
    raise TaskError("the Save As dialog shows no Line Ending list")
