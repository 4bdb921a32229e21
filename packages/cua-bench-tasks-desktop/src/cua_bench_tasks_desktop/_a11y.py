"""What a running app shows, read from its accessibility tree: the settings tasks' second witness.

A setting scored from its config file alone can be earned by editing the file behind the app's
back (``sed`` in a terminal that PCManFM's F4 opens), while the window on screen never changes.
So these tasks also ask the app: the tree ``session.accessibility_tree()`` gives (AT-SPI) holds
the widgets as they are now, such as whether a status bar is showing or which files a folder view
lists. It is the app's live state, which no file edit reaches.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cua_bench import Session
from cua_bench_tasks_desktop._common import Match

__all__ = ["app_window", "lists", "nodes", "shows"]

Node = dict[str, Any]


async def app_window(session: Session, title: Match) -> Node | None:
    """The front-most window whose title matches, with its widgets (None: no such window)."""
    for node in await session.accessibility_tree():
        name = str(node.get("name") or "")
        if name == title if isinstance(title, str) else title(name):
            return node
    return None


def nodes(node: Node) -> Iterator[Node]:
    """``node`` and every widget under it."""
    yield node
    for child in node.get("children") or []:
        yield from nodes(child)


def shows(window: Node, role: str) -> bool:
    """Whether a widget of ``role`` ("statusbar", "tool bar") is on screen in ``window``."""
    return any(n.get("role") == role and "showing" in (n.get("states") or []) for n in nodes(window))


def lists(window: Node, name: str, roles: tuple[str, ...] = ("icon", "table cell", "list item")) -> bool:
    """Whether ``window`` shows an item called ``name`` (a file in a folder view: its icon or its row)."""
    return any(n.get("role") in roles and name in (n.get("name"), n.get("value")) for n in nodes(window))
