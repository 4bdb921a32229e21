"""Actions as plain dicts: the form that travels over msgpack, JSON and Parquet.

A plain dict holds only ``str``, ``int``, ``float``, ``bool``, ``None`` and lists, so it survives
every codec unchanged; ``action_from_dict`` is the strict inverse of ``action_to_dict`` because the
dicts also arrive from other processes and from datasets, where mistakes must be named, not
guessed around.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from cua_core.actions.checks import describe
from cua_core.actions.coords import Point, point_from, to_pixels
from cua_core.actions.records import ACTIONS, Action
from cua_core.errors import ActionError

__all__ = ["POINT_FIELDS", "action_from_dict", "action_to_dict", "action_to_pixels"]

POINT_FIELDS = frozenset({"coordinate", "start", "end", "center"})
"""Field names that hold a ``Point`` in every record; their plain form is ``[x, y]``."""


def _plain(value: object) -> Any:
    if isinstance(value, Point):
        return [value.x, value.y]
    if isinstance(value, tuple):
        return list(value)
    return value


def action_to_dict(action: Action) -> dict[str, Any]:
    """``{"kind": ..., <every field>}`` with points as ``[x, y]`` and tuples as lists."""
    plain: dict[str, Any] = {"kind": action.kind}
    for field in dataclasses.fields(action):
        plain[field.name] = _plain(getattr(action, field.name))
    return plain


def action_to_pixels(action: Action, width: int, height: int) -> dict[str, Any]:
    """Like ``action_to_dict``, with every point as the integer pixel ``[x, y]`` it falls in.

    This is what a backend with a ``width`` x ``height`` screen executes.
    """
    plain = action_to_dict(action)
    for name in POINT_FIELDS & plain.keys():
        point = getattr(action, name)
        if point is not None:
            plain[name] = list(to_pixels(point, width, height))
    return plain


def _unknown_kind(kind: object) -> ActionError:
    return ActionError(f"unknown action kind {describe(kind)}; known kinds: {', '.join(ACTIONS)}")


def action_from_dict(data: object) -> Action:
    """Build and validate the action a plain dict describes; every mistake is an ``ActionError``."""
    if not isinstance(data, Mapping):
        raise ActionError(f"an action must be a dict with a 'kind', got {describe(data)}")
    if "kind" not in data:
        raise ActionError(f"action dict {describe(data)} has no 'kind'; known kinds: " + ", ".join(ACTIONS))
    kind = data["kind"]
    cls = ACTIONS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise _unknown_kind(kind)

    fields = {field.name: field for field in dataclasses.fields(cls)}
    unknown = [name for name in data if name != "kind" and name not in fields]
    if unknown:
        allowed = ", ".join(fields) or "none"
        raise ActionError(f"{kind}: unknown field {describe(unknown[0])}; allowed fields: {allowed}")
    missing = [
        name
        for name, field in fields.items()
        if name not in data and field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise ActionError(f"{kind}: missing required field {missing[0]!r}")

    values: dict[str, Any] = {}
    for name in fields:
        if name not in data:
            continue
        value = data[name]
        if name in POINT_FIELDS and value is not None:
            value = point_from(value, f"{kind}.{name}")
        elif name == "keys" and isinstance(value, Sequence) and not isinstance(value, str):
            value = tuple(value)
        values[name] = value
    return cls(**values)
