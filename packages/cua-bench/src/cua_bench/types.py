"""Cua Bench's action and snapshot types (``cua_bench.types`` in trycua/cua), with its field names.

Cua's oracles build these (``session.execute_action(ClickAction(x=10, y=20))``, pixels) and its
agents and trajectories write them as their reprs; the session converts them to our actions
(``cua_bench.html_windows.cua_actions``). ``repr_to_action`` reads a repr back without ``eval``.
Kept free of heavy imports: ``import cua_bench`` loads it in every env server.
"""

from __future__ import annotations

import ast
import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from cua_core import CuaError

__all__ = [
    "ACTION_TYPES",
    "Action",
    "ActionReprError",
    "ClickAction",
    "DoneAction",
    "DoubleClickAction",
    "DragAction",
    "HotkeyAction",
    "KeyAction",
    "MiddleClickAction",
    "MoveToAction",
    "RightClickAction",
    "ScrollAction",
    "Snapshot",
    "TypeAction",
    "WaitAction",
    "WindowSnapshot",
    "make_action",
    "repr_to_action",
]


@dataclass
class ClickAction:
    x: int
    y: int


@dataclass
class RightClickAction:
    x: int
    y: int


@dataclass
class DoubleClickAction:
    x: int
    y: int


@dataclass
class MiddleClickAction:
    x: int
    y: int


@dataclass
class DragAction:
    from_x: int
    from_y: int
    to_x: int
    to_y: int
    duration: float = 1.0


@dataclass
class MoveToAction:
    x: int
    y: int
    duration: float = 0.0


@dataclass
class ScrollAction:
    direction: Literal["up", "down"] = "up"
    amount: int = 100


@dataclass
class TypeAction:
    text: str


@dataclass
class KeyAction:
    key: str


@dataclass
class HotkeyAction:
    keys: list[str]


@dataclass
class DoneAction:
    pass


@dataclass
class WaitAction:
    seconds: float = 1.0


Action: TypeAlias = (
    ClickAction
    | RightClickAction
    | DoubleClickAction
    | MiddleClickAction
    | DragAction
    | MoveToAction
    | ScrollAction
    | TypeAction
    | KeyAction
    | HotkeyAction
    | DoneAction
    | WaitAction
)

ACTION_TYPES: dict[str, type[Action]] = {
    cls.__name__: cls
    for cls in (
        ClickAction,
        RightClickAction,
        DoubleClickAction,
        MiddleClickAction,
        DragAction,
        MoveToAction,
        ScrollAction,
        TypeAction,
        KeyAction,
        HotkeyAction,
        DoneAction,
        WaitAction,
    )
}


@dataclass
class WindowSnapshot:
    """One window as ``session.get_snapshot()`` sees it; geometry in screen pixels."""

    window_type: Literal["webview", "process", "desktop"]
    pid: str | None = None
    url: str | None = None
    html: str | None = None
    title: str = ""
    x: int = 0
    y: int = 0
    width: int = 0
    height: int = 0
    active: bool = False
    minimized: bool = False


@dataclass
class Snapshot:
    windows: list[WindowSnapshot] = field(default_factory=list)


class ActionReprError(CuaError, ValueError):
    """Text that is not the repr of one of Cua's actions (a ``ValueError``, as a parse failure is)."""


# What each field of an action may hold when read back from text: a repr of an action built with a
# float where Cua annotates int (an oracle's computed centre) still reads, a string where a number
# belongs does not.
_NUMBER = "number"
_KINDS: dict[str, str] = {
    "x": _NUMBER,
    "y": _NUMBER,
    "from_x": _NUMBER,
    "from_y": _NUMBER,
    "to_x": _NUMBER,
    "to_y": _NUMBER,
    "duration": _NUMBER,
    "seconds": _NUMBER,
    "amount": _NUMBER,
    "direction": "direction",
    "text": "text",
    "key": "text",
    "keys": "keys",
}


def repr_to_action(text: str) -> Action:
    """The action ``text`` is the repr of: ``"ClickAction(x=100, y=200)"``, ``"TypeAction(text='hi')"``,
    ``"HotkeyAction(keys=['ctrl', 'c'])"``, ``"DoneAction()"``. Values are read as Python literals
    (``ast.literal_eval``), never evaluated; anything else raises ``ActionReprError`` naming the text."""
    if not isinstance(text, str):
        raise ActionReprError(f"repr_to_action: expected the text of an action, got {type(text).__name__}")
    shown = text if len(text) <= 200 else text[:200] + "..."
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise ActionReprError(f"repr_to_action: {shown!r} is not an action's repr ({type(exc).__name__})") from None
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.func.id not in ACTION_TYPES:
        raise ActionReprError(
            f"repr_to_action: {shown!r} is not an action's repr; expected one of "
            f"{', '.join(ACTION_TYPES)} called with literal values, like ClickAction(x=100, y=200)"
        )
    cls = ACTION_TYPES[call.func.id]
    names = [f.name for f in dataclasses.fields(cls)]
    if len(call.args) > len(names):
        raise ActionReprError(f"repr_to_action: {shown!r}: {cls.__name__} takes {len(names)} value(s)")
    values: dict[str, Any] = {}
    for name, node in [*zip(names, call.args, strict=False), *((k.arg, k.value) for k in call.keywords)]:
        if name is not None and name in values:
            raise ActionReprError(f"repr_to_action: {shown!r}: {name} given twice")
        try:
            values[name or "**"] = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise ActionReprError(f"repr_to_action: {shown!r}: {name} is not a literal value") from None
    return make_action(cls, values, f"repr_to_action: {shown!r}")


def make_action(cls: type[Action], values: dict[str, Any], where: str) -> Action:
    """``cls`` built from ``values`` once each is checked against its field (numbers, 'up'/'down', text,
    key names); ``where`` starts the ``ActionReprError`` for anything missing, unknown or of the wrong kind."""
    names = [f.name for f in dataclasses.fields(cls)]
    for name, value in values.items():
        if name not in names:
            raise ActionReprError(
                f"{where}: {cls.__name__} has no field {name!r} (its fields: {', '.join(names) or 'none'})"
            )
        problem = _check(name, value)
        if problem:
            raise ActionReprError(f"{where}: {name} {problem}")
    missing = [f.name for f in dataclasses.fields(cls) if f.name not in values and _required(f)]
    if missing:
        raise ActionReprError(f"{where}: {cls.__name__} needs {', '.join(missing)}")
    typed: dict[str, Any] = {name: list(v) if _KINDS[name] == "keys" else v for name, v in values.items()}
    return cls(**typed)


def _required(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _check(name: str, value: Any) -> str | None:
    """Why ``value`` cannot be field ``name``, or None."""
    shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:80] + "..."
    kind = _KINDS[name]
    if kind == _NUMBER:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and not (isinstance(value, float) and not math.isfinite(value))
        return None if ok else f"must be a number, got {shown}"
    if kind == "direction":
        return None if value in ("up", "down") else f"must be 'up' or 'down', got {shown}"
    if kind == "text":
        return None if isinstance(value, str) else f"must be a string, got {shown}"
    ok = isinstance(value, list | tuple) and all(isinstance(k, str) for k in value)
    return None if ok else f"must be a list of key names, got {shown}"
