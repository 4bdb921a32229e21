"""``uiautomator dump``'s XML as the accessibility nodes every session gives.

The dump (AOSP's ``AccessibilityNodeInfoDumper``) is ``<hierarchy rotation="R">`` holding the active window's
root ``<node>``, each node with ``index``, ``text``, ``resource-id``, ``class``, ``package``,
``content-desc``, the flags ``checkable``, ``checked``, ``clickable``, ``enabled``, ``focusable``,
``focused``, ``scrollable``, ``long-clickable``, ``password``, ``selected`` (``true``/``false``), ``bounds``
as ``[x1,y1][x2,y2]`` in screen pixels, and its visible children (invisible ones are left out by the
dumper). Some versions add ``NAF`` and other attributes; they are ignored.

Roles are AT-SPI's role names where AT-SPI has the same kind of widget (``android.widget.Button`` is
``push button``, ``EditText`` is ``text``), as the macOS and Windows sessions do, so ``find(role=...,
name=...)`` means the same everywhere; another class is its short name, lower-cased. A node's name is its
text, else its content description; an editable field's name is its description and its text is its
value. States are AT-SPI's names, plus Android's ``clickable``, ``long_clickable`` and ``scrollable``,
which AT-SPI has no name for. Each top-level node is wrapped in a ``window`` node for its package, as the
other sessions' windows are; ``class`` and ``resource_id`` ride along for ``find(resource_id=...)``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from cua_core import COORD_MAX, CuaError

__all__ = ["ROLES", "HierarchyError", "parse_bounds", "parse_hierarchy"]

MAX_NODES = 5_000  # per dump, as on local and macOS: a long list is noise past this
MAX_TEXT = 10_000  # characters of a node's text kept
ROLES = {
    "android.widget.Button": "push button", "android.widget.ImageButton": "push button",
    "android.widget.TextView": "label", "android.widget.EditText": "text",
    "android.widget.AutoCompleteTextView": "text", "android.widget.MultiAutoCompleteTextView": "text",
    "android.widget.ImageView": "image", "android.widget.CheckBox": "check box",
    "android.widget.CheckedTextView": "check box", "android.widget.RadioButton": "radio button",
    "android.widget.Switch": "toggle button", "android.widget.ToggleButton": "toggle button",
    "android.widget.SeekBar": "slider", "android.widget.RatingBar": "slider",
    "android.widget.ProgressBar": "progress bar", "android.widget.Spinner": "combo box",
    "android.widget.ListView": "list", "android.widget.GridView": "list",
    "androidx.recyclerview.widget.RecyclerView": "list", "android.support.v7.widget.RecyclerView": "list",
    "android.widget.ScrollView": "scroll pane", "android.widget.HorizontalScrollView": "scroll pane",
    "androidx.core.widget.NestedScrollView": "scroll pane", "android.webkit.WebView": "document web",
    "android.widget.TabWidget": "page tab list", "android.widget.Toolbar": "tool bar",
    "androidx.appcompat.widget.Toolbar": "tool bar", "android.widget.FrameLayout": "panel",
    "android.widget.LinearLayout": "panel", "android.widget.RelativeLayout": "panel",
    "android.view.ViewGroup": "panel", "android.view.View": "panel",
}  # fmt: skip
EDITABLE = frozenset(cls for cls, role in ROLES.items() if role == "text")
# Android's flags by their state names (AT-SPI's where it has one).
FLAGS = {
    "checkable": "checkable", "checked": "checked", "focusable": "focusable", "focused": "focused",
    "selected": "selected", "clickable": "clickable", "long-clickable": "long_clickable", "scrollable": "scrollable",
}  # fmt: skip
_BOUNDS = re.compile(r"^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$")


class HierarchyError(CuaError):
    """``uiautomator dump`` gave no hierarchy; the message quotes what it gave."""


def parse_bounds(text: str, width: int, height: int) -> list[float] | None:
    """``[x1,y1][x2,y2]`` in pixels as ``[left, top, right, bottom]`` in [0, 1000], cut to the screen; None for
    bounds that are malformed or have nothing on screen."""
    found = _BOUNDS.match(text.strip())
    if found is None:
        return None
    left, top, right, bottom = (int(value) for value in found.groups())
    left, right = max(0, left), min(width, right)
    top, bottom = max(0, top), min(height, bottom)
    if right <= left or bottom <= top:
        return None
    return [
        round(left * COORD_MAX / width, 3), round(top * COORD_MAX / height, 3),
        round(right * COORD_MAX / width, 3), round(bottom * COORD_MAX / height, 3),
    ]  # fmt: skip


def _role(element: ET.Element) -> str:
    cls = element.get("class", "")
    if element.get("password") == "true" and cls in EDITABLE:
        return "password text"
    return ROLES.get(cls) or cls.rsplit(".", 1)[-1].lower() or "unknown"


def _states(element: ET.Element) -> list[str]:
    states = ["enabled", "sensitive"] if element.get("enabled") == "true" else []
    states += [name for attribute, name in FLAGS.items() if element.get(attribute) == "true"]
    states += ["showing", "visible"]  # the dumper leaves out what is not visible to the user
    if element.get("class", "") in EDITABLE:
        states.append("editable")
    return states


def _node(element: ET.Element, width: int, height: int, budget: list[int]) -> dict[str, Any]:
    budget[0] -= 1
    text = element.get("text", "")[:MAX_TEXT]
    description = element.get("content-desc", "")
    editable = element.get("class", "") in EDITABLE
    children = []
    for child in element.iterfind("node"):
        if budget[0] <= 0:
            break
        children.append(_node(child, width, height, budget))
    return {
        "role": _role(element),
        "name": description if editable else (text or description),
        "bounds": parse_bounds(element.get("bounds", ""), width, height),
        "states": _states(element),
        "value": text or None,
        "children": children,
        "class": element.get("class", ""),
        "resource_id": element.get("resource-id", ""),
    }


def parse_hierarchy(xml: bytes, width: int, height: int) -> list[dict[str, Any]]:
    """The dump as top-level ``window`` nodes (the first, the active window's, focused), each holding its root.

    Raises:
        HierarchyError: ``xml`` is not a ``<hierarchy>`` document.
    """
    start = xml.find(b"<")
    try:
        root = ET.fromstring(xml[start:] if start >= 0 else xml)
    except ET.ParseError as exc:
        said = xml[:200].decode("utf-8", "replace").strip()
        raise HierarchyError(f"uiautomator's dump is not XML ({exc}): {said!r}") from None
    if root.tag != "hierarchy":
        raise HierarchyError(f"uiautomator's dump holds <{root.tag}>, not <hierarchy>")
    budget = [MAX_NODES]
    windows = []
    for index, element in enumerate(root.iterfind("node")):
        tree = _node(element, width, height, budget)
        package = element.get("package", "")
        states = ["showing", "visible", *(["active", "focused"] if index == 0 else [])]
        windows.append({
            "role": "window", "name": package, "bounds": tree["bounds"], "states": states, "value": None,
            "children": [tree], "app": package, "id": package,
        })  # fmt: skip
    return windows
