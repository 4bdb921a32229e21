"""The accessibility tree's nodes as every session gives them (``{"role", "name", "bounds", "states",
"value", "children"}``, bounds in action coordinates): walk them, find one, act on its middle."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from cua_core import Point

__all__ = ["center", "find", "find_all", "walk"]


def walk(nodes: Sequence[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every node, depth first, front window first."""
    for node in nodes:
        yield node
        yield from walk(node.get("children") or [])


def find_all(
    nodes: Sequence[dict[str, Any]], role: str | None = None, name: str | None = None, **match: Any
) -> list[dict[str, Any]]:
    """Nodes with this role and name (exact), and every other given key equal (e.g. value=...)."""
    found = []
    for node in walk(nodes):
        if role is not None and node.get("role") != role:
            continue
        if name is not None and node.get("name") != name:
            continue
        if all(node.get(k) == v for k, v in match.items()):
            found.append(node)
    return found


def find(
    nodes: Sequence[dict[str, Any]], role: str | None = None, name: str | None = None, **match: Any
) -> dict[str, Any]:
    found = find_all(nodes, role, name, **match)
    if not found:
        wanted = ", ".join(f"{k}={v!r}" for k, v in {"role": role, "name": name, **match}.items() if v is not None)
        raise LookupError(f"no accessibility node with {wanted}")
    return found[0]


def center(node: dict[str, Any]) -> Point:
    """The middle of a node's bounds, as an action coordinate."""
    left, top, right, bottom = node["bounds"]
    return Point((left + right) / 2, (top + bottom) / 2)
