"""Cua Bench's action conversions (``cua_bench.actions`` in trycua/cua), so its agents and tools import
as they are written: reprs (``ClickAction(x=100, y=200)``), the short form its prompts ask models for
(``click(100, 200)``, ``scroll(down, 3)``, ``hotkey(ctrl+c)``) and dicts (``{"type": "ClickAction",
"x": 100, "y": 200}``).

Every reader parses with ``ast`` and reads literals only, never ``eval``; every value is checked
against its field as ``repr_to_action`` checks it, and anything else is an ``ActionReprError`` (a
``ValueError``, as Cua raises) naming the text. Unlike Cua's, a dict that lacks a coordinate is an
error, not a click at (0, 0).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Any

from cua_bench.types import (
    ACTION_TYPES,
    Action,
    ActionReprError,
    ClickAction,
    DoneAction,
    DoubleClickAction,
    DragAction,
    HotkeyAction,
    KeyAction,
    MiddleClickAction,
    MoveToAction,
    RightClickAction,
    ScrollAction,
    TypeAction,
    WaitAction,
    make_action,
    repr_to_action,
)

__all__ = ["action_to_dict", "dict_to_action", "parse_action_string", "repr_to_action", "snake_case_to_action"]

# The short form's verbs; its values are the class's fields in order.
SHORT: dict[str, type[Action]] = {
    "click": ClickAction,
    "right_click": RightClickAction,
    "double_click": DoubleClickAction,
    "middle_click": MiddleClickAction,
    "drag": DragAction,
    "move_to": MoveToAction,
    "scroll": ScrollAction,
    "key": KeyAction,
    "type": TypeAction,
    "hotkey": HotkeyAction,
    "wait": WaitAction,
    "done": DoneAction,
}


def action_to_dict(action: Action) -> dict[str, Any]:
    """``{"type": class name, **fields}``."""
    if type(action).__name__ not in ACTION_TYPES or not dataclasses.is_dataclass(action):
        raise ActionReprError(f"action_to_dict: {action!r} is not one of Cua's actions ({', '.join(ACTION_TYPES)})")
    return {"type": type(action).__name__, **dataclasses.asdict(action)}


def _normal(name: str) -> str:
    return name.lower().replace("_", "").removesuffix("action")


_BY_NORMAL = {_normal(name): cls for name, cls in ACTION_TYPES.items()}


def dict_to_action(data: dict[str, Any]) -> Action:
    """The action a dict names by ``type`` (or ``action_type``): ``ClickAction``, ``click``, ``right_click``."""
    if not isinstance(data, dict):
        raise ActionReprError(f"dict_to_action: expected a dict, got {type(data).__name__}")
    name = data.get("type", data.get("action_type"))
    cls = _BY_NORMAL.get(_normal(name)) if isinstance(name, str) else None
    if cls is None:
        raise ActionReprError(f"dict_to_action: type {name!r} is not one of {', '.join(ACTION_TYPES)}")
    values = {key: value for key, value in data.items() if key not in ("type", "action_type")}
    return make_action(cls, values, f"dict_to_action: {data!r}"[:240])


def snake_case_to_action(text: str) -> Action:
    """The action of the short form: ``click(100, 200)``, ``drag(1, 2, 3, 4)``, ``scroll(down, 3)``,
    ``key(enter)``, ``type('hello')``, ``hotkey(ctrl+c)``, ``wait(1.5)``, ``done()``."""
    if not isinstance(text, str):
        raise ActionReprError(f"snake_case_to_action: expected text, got {type(text).__name__}")
    source = text.strip()
    shown = f"snake_case_to_action: {source[:200]!r}"
    try:
        call = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise ActionReprError(f"{shown} is not an action like click(100, 200)") from None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.func.id not in SHORT:
        raise ActionReprError(f"{shown} is not one of {', '.join(f'{verb}(...)' for verb in SHORT)}")
    cls = SHORT[call.func.id]
    names = [f.name for f in dataclasses.fields(cls)]
    if call.keywords or len(call.args) > len(names):
        raise ActionReprError(f"{shown}: {call.func.id} takes up to {len(names)} value(s), in order: {names}")
    values: dict[str, Any] = {}
    for name, node in zip(names, call.args, strict=False):
        if name == "keys":  # hotkey(ctrl+c): the keys as written, joined by +
            values[name] = (ast.get_source_segment(source, node) or "").replace(" ", "").split("+")
        elif isinstance(node, ast.Name):  # scroll(down), key(enter): a bare word is its name
            values[name] = node.id
        else:
            try:
                values[name] = ast.literal_eval(node)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                raise ActionReprError(f"{shown}: {name} is not a literal value") from None
    return make_action(cls, values, shown)


def parse_action_string(text: str) -> Action:
    """A repr (``ClickAction(x=1, y=2)``) or the short form (``click(1, 2)``), whichever ``text`` is."""
    if isinstance(text, str) and re.match(r"\s*[A-Z]\w*Action\(", text):
        return repr_to_action(text)
    return snake_case_to_action(text)
