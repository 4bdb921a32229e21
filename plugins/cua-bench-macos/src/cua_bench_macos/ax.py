"""The accessibility (AX) tree as our nodes, and Quartz's window list as ``windows()`` rows.

Roles are AT-SPI's role names where AT-SPI has the same kind of widget (``AXButton`` is ``push button``,
``AXTextField`` is ``text``), as the Windows session does with UI Automation, so a task's
``find(role=..., name=...)`` means the same on every desktop; other AX roles keep their own name,
without the ``AX`` prefix, lower-cased. A node's name is ``AXTitle``, else ``AXDescription`` (what
VoiceOver reads for an unlabelled button). States follow AT-SPI's names. Bounds come from
``AXPosition``/``AXSize`` in points and are normalised by the screen's size in points, so Retina
scaling never reaches a node.
"""

from __future__ import annotations

from typing import Any

from cua_bench_macos.macapi import AXElement, WindowInfo

__all__ = ["ROLES", "SHELL_APPS", "app_windows", "node", "normalised", "states", "window_row"]

MAX_TEXT = 10_000  # characters of a value kept in a node (a whole document is noise), as on local
MAX_NODES = 5_000  # per window, as on local
# The processes whose windows are the system's, not an app's: never listed as app windows, and never
# killed by reset (their windows are asked to close).
SHELL_APPS = frozenset({"Dock", "Window Server", "WindowServer", "SystemUIServer", "Control Center",
                        "Notification Center", "Spotlight", "loginwindow", "TextInputMenuAgent"})  # fmt: skip
ROLES: dict[str, str] = {
    "AXApplication": "application", "AXWindow": "window", "AXSheet": "dialog", "AXButton": "push button",
    "AXRadioButton": "radio button", "AXCheckBox": "check box", "AXPopUpButton": "combo box",
    "AXComboBox": "combo box", "AXMenuButton": "push button", "AXTextField": "text", "AXTextArea": "text",
    "AXSecureTextField": "password text", "AXStaticText": "label", "AXLink": "link", "AXImage": "image",
    "AXMenuBar": "menu bar", "AXMenuBarItem": "menu", "AXMenu": "menu", "AXMenuItem": "menu item",
    "AXToolbar": "tool bar", "AXScrollArea": "scroll pane", "AXScrollBar": "scroll bar", "AXSlider": "slider",
    "AXIncrementor": "spin button", "AXProgressIndicator": "progress bar", "AXTabGroup": "page tab list",
    "AXTable": "table", "AXOutline": "tree table", "AXRow": "table row", "AXColumn": "table column header",
    "AXCell": "table cell", "AXList": "list", "AXGroup": "panel", "AXSplitGroup": "split pane",
    "AXSplitter": "separator", "AXWebArea": "document web", "AXHeading": "heading",
    "AXDisclosureTriangle": "toggle button",
}  # fmt: skip
CHECKED = {1: "checked", 2: "indeterminate"}  # an AXCheckBox's or AXRadioButton's AXValue
TOGGLES = frozenset({"AXCheckBox", "AXRadioButton"})


def role(element: AXElement) -> str:
    if element.role == "AXButton" and element.subrole == "AXTabButton":
        return "page tab"  # a tab is a button with that subrole
    return ROLES.get(element.role, element.role.removeprefix("AX").lower())


def normalised(x: float, y: float, w: float, h: float, screen: tuple[float, float]) -> list[float]:
    """A rectangle in points to ``[left, top, right, bottom]`` in [0, 1000]."""
    sx, sy = 1000 / screen[0], 1000 / screen[1]
    return [round(x * sx, 3), round(y * sy, 3), round((x + w) * sx, 3), round((y + h) * sy, 3)]


def states(element: AXElement) -> list[str]:
    """AT-SPI's state names for what AX says: AXEnabled, AXFocused, AXSelected, a toggle's AXValue and
    whether AXValue is settable (an editable text)."""
    found = ["enabled", "sensitive"] if element.enabled else []
    if element.focused:
        found.append("focused")
    found += ["showing", "visible"]  # AX lists what is on screen (a closed menu's items are not children)
    if element.selected:
        found.append("selected")
    if element.role in TOGGLES and isinstance(element.value, int) and element.value in CHECKED:
        found.append(CHECKED[element.value])
    if element.value_settable is not None and element.role in ("AXTextField", "AXTextArea", "AXComboBox"):
        found.append("editable" if element.value_settable else "read_only")
    return found


def _value(element: AXElement) -> str | None:
    if element.value is None or element.role in TOGGLES:
        return None
    text = str(element.value)
    return text[:MAX_TEXT]


def node(element: AXElement, screen: tuple[float, float], budget: list[int] | None = None) -> dict[str, Any]:
    """One element and its descendants as nodes (at most ``MAX_NODES`` in all)."""
    budget = budget if budget is not None else [MAX_NODES]
    budget[0] -= 1
    children = []
    for child in element.children:
        if budget[0] <= 0:
            break
        children.append(node(child, screen, budget))
    return {
        "role": role(element), "name": element.title or element.description,
        "bounds": normalised(*element.position, *element.size, screen), "states": states(element),
        "value": _value(element), "children": children,
    }  # fmt: skip


def app_windows(windows: list[WindowInfo]) -> list[WindowInfo]:
    """Apps' ordinary windows (layer 0), front first; the menu bar, the Dock and the desktop are not."""
    return [w for w in windows if w.layer == 0 and w.owner not in SHELL_APPS and w.bounds[2] > 0]


def window_row(window: WindowInfo, screen: tuple[float, float], front_pid: int, front_window: int) -> dict[str, Any]:
    """``windows()``'s row: its window number as the id, its owner as the app; focused is the front
    window of the app with the keyboard."""
    return {
        "id": str(window.number), "title": window.name, "app": window.owner,
        "bounds": normalised(*window.bounds, screen),
        "focused": window.pid == front_pid and window.number == front_window,
    }  # fmt: skip
