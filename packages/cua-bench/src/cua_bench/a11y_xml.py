"""The accessibility tree in OSWorld's XML form, from the node form every backend gives.

OSWorld's Ubuntu VM serialises AT-SPI as ``<desktop-frame>`` holding one ``<application>`` per
app; an element's tag is its role name with spaces as dashes, with ``name``, one ``st:<state>="true"``
per state, ``cp:screencoord="(x, y)"`` and ``cp:size="(w, h)"`` in screen pixels, and its text as
the element's text. Agents prompted on that form (and OSWorld's ``check_accessibility_tree``
metric) read ours unchanged. Node ``bounds`` are normalised to [0, 1000]; ``width``/``height``
turn them back into pixels.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

__all__ = ["OSWORLD_NAMESPACES", "to_osworld_xml"]

_BASE = "https://accessibility.ubuntu.example.org/ns"
OSWORLD_NAMESPACES = {
    "st": f"{_BASE}/state",
    "attr": f"{_BASE}/attributes",
    "cp": f"{_BASE}/component",
    "doc": f"{_BASE}/document",
    "docattr": f"{_BASE}/document/attributes",
    "txt": f"{_BASE}/text",
    "val": f"{_BASE}/value",
    "act": f"{_BASE}/action",
}
for _prefix, _uri in OSWORLD_NAMESPACES.items():
    ET.register_namespace(_prefix, _uri)

_NOT_NAME = re.compile(r"[^A-Za-z0-9_.-]")
# Characters XML 1.0 cannot hold at all (control characters a terminal or a document may contain).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _tag(role: str) -> str:
    tag = _NOT_NAME.sub("-", role.strip().replace(" ", "-")) or "unknown"
    return tag if tag[0].isalpha() or tag[0] == "_" else f"_{tag}"


def _element(node: dict[str, Any], width: int, height: int, role: str | None = None) -> ET.Element:
    element = ET.Element(_tag(role or str(node.get("role") or "unknown")))
    element.set("name", _NOT_XML.sub("", str(node.get("name") or "")))
    for state in node.get("states") or ():
        element.set(f"{{{OSWORLD_NAMESPACES['st']}}}{_tag(str(state))}", "true")
    bounds = node.get("bounds")
    if bounds:
        left, top, right, bottom = bounds
        x, y = round(left * width / 1000), round(top * height / 1000)
        element.set(f"{{{OSWORLD_NAMESPACES['cp']}}}screencoord", f"({x}, {y})")
        size = (round(right * width / 1000) - x, round(bottom * height / 1000) - y)
        element.set(f"{{{OSWORLD_NAMESPACES['cp']}}}size", f"({size[0]}, {size[1]})")
    value = node.get("value")
    if isinstance(value, str) and value:
        element.text = _NOT_XML.sub("", value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        element.set(f"{{{OSWORLD_NAMESPACES['val']}}}value", str(value))
    for child in node.get("children") or ():
        element.append(_element(child, width, height))
    return element


def to_osworld_xml(nodes: Sequence[dict[str, Any]], width: int, height: int) -> str:
    """``nodes`` (top-level windows, front to back) as OSWorld's accessibility-tree XML.

    Each window becomes a ``frame`` inside an ``application`` named by the node's ``app`` (its
    title where the backend gives no app); consecutive windows of one app share the element.
    """
    root = ET.Element("desktop-frame", {"name": "main"})
    application: ET.Element | None = None
    for node in nodes:
        app = str(node.get("app") or node.get("name") or "")
        if application is None or application.get("name") != app:
            application = ET.SubElement(root, "application", {"name": app})
        application.append(_element(node, width, height, role="frame" if node.get("role") == "window" else None))
    return ET.tostring(root, encoding="unicode")
