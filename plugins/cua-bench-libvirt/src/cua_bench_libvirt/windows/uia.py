"""The UI Automation tree as our accessibility nodes, and its top-level windows as ``windows()`` rows.

Roles are AT-SPI's role names where AT-SPI has the same kind of widget (UIA's Button is AT-SPI's
``push button``, Edit is ``text``), so a task's ``find(role=..., name=...)`` means the same on the
local desktop and on Windows; UIA's other control types keep UIA's name, lower-cased. States follow
AT-SPI's names too. Elements that are off screen (a closed menu's items, a scrolled-away row) are
left out with their subtrees, as the local desktop leaves out what is not showing: an agent cannot
act on them. Bounds are normalised to [0, 1000] like action coordinates.
"""

from __future__ import annotations

from typing import Any

from cua_bench_libvirt.windows.winapi import UiaElement

__all__ = ["CONTROL_TYPES", "WINDOW", "node", "normalised", "role", "states", "top_windows", "window_row"]

WINDOW = 50032  # UIA_WindowControlTypeId: what an app's top-level window is
TASKBAR_CLASS = "Shell_TrayWnd"
MAX_TEXT = 10_000  # characters of a value kept in a node (a whole document is noise), as on local
MAX_NODES = 5_000  # per window, as on local
# UIA_<Name>ControlTypeId (UIAutomationClient.h) -> role.
CONTROL_TYPES: dict[int, str] = {
    50000: "push button", 50001: "calendar", 50002: "check box", 50003: "combo box", 50004: "text",
    50005: "link", 50006: "image", 50007: "list item", 50008: "list", 50009: "menu", 50010: "menu bar",
    50011: "menu item", 50012: "progress bar", 50013: "radio button", 50014: "scroll bar", 50015: "slider",
    50016: "spin button", 50017: "status bar", 50018: "page tab list", 50019: "page tab", 50020: "label",
    50021: "tool bar", 50022: "tool tip", 50023: "tree", 50024: "tree item", 50025: "custom",
    50026: "grouping", 50027: "thumb", 50028: "table", 50029: "table row", 50030: "document",
    50031: "split button", 50032: "window", 50033: "panel", 50034: "header", 50035: "table column header",
    50036: "table", 50037: "title bar", 50038: "separator", 50039: "semantic zoom", 50040: "app bar",
}  # fmt: skip
TOGGLE_STATES = {1: "checked", 2: "indeterminate"}  # ToggleState_On, ToggleState_Indeterminate


def role(control_type: int) -> str:
    return CONTROL_TYPES.get(control_type, f"control type {control_type}")


def normalised(rect: tuple[int, int, int, int], width: int, height: int) -> list[float]:
    """A RECT in pixels to ``[left, top, right, bottom]`` in [0, 1000]."""
    left, top, right, bottom = rect
    return [round(left * 1000 / width, 3), round(top * 1000 / height, 3),
            round(right * 1000 / width, 3), round(bottom * 1000 / height, 3)]  # fmt: skip


def states(element: UiaElement) -> list[str]:
    """AT-SPI's state names for what UIA says: IsEnabled, IsKeyboardFocusable, HasKeyboardFocus,
    IsOffscreen, ToggleState, and ValuePattern's IsReadOnly."""
    found = ["enabled", "sensitive"] if element.enabled else []
    if element.keyboard_focusable:
        found.append("focusable")
    if element.has_keyboard_focus:
        found.append("focused")
    if not element.offscreen:
        found += ["showing", "visible"]
    if element.toggle_state in TOGGLE_STATES:
        found.append(TOGGLE_STATES[element.toggle_state])
    if element.value_read_only is not None:
        found.append("read_only" if element.value_read_only else "editable")
    return found


def node(element: UiaElement, width: int, height: int, budget: list[int] | None = None) -> dict[str, Any]:
    """One element and its on-screen descendants as nodes (at most ``MAX_NODES`` in all)."""
    budget = budget if budget is not None else [MAX_NODES]
    budget[0] -= 1
    children = []
    for child in element.children:
        if child.offscreen or budget[0] <= 0:
            continue
        children.append(node(child, width, height, budget))
    value = element.value[:MAX_TEXT] if element.value is not None else None
    return {
        "role": role(element.control_type), "name": element.name,
        "bounds": normalised(element.rect, width, height), "states": states(element), "value": value,
        "children": children,
    }  # fmt: skip


def top_windows(root: UiaElement, *, taskbar: bool = False) -> list[UiaElement]:
    """The desktop's app windows (ControlType Window), in the order UIA lists the desktop's children
    (the windows' z-order, front first); with ``taskbar``, the taskbar after them."""
    windows = [child for child in root.children if child.control_type == WINDOW and child.native_window_handle]
    if taskbar:
        windows += [child for child in root.children if child.class_name == TASKBAR_CLASS]
    return windows


def window_row(element: UiaElement, width: int, height: int, foreground: int) -> dict[str, Any]:
    """``windows()``'s row for a top-level window: its handle as the id, its process as the app."""
    app = element.process_name.rsplit("\\", 1)[-1].removesuffix(".exe").removesuffix(".EXE")
    return {
        "id": f"0x{element.native_window_handle:x}", "title": element.name, "app": app or element.class_name,
        "bounds": normalised(element.rect, width, height),
        "focused": element.native_window_handle == foreground,
    }  # fmt: skip
