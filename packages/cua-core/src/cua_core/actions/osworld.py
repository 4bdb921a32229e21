"""OSWorld's ``computer_13`` action dicts, to and from unified actions.

OSWorld (``desktop_env/actions.py``) writes ``{"action_type": "CLICK", "parameters": {...}}`` with
pixel coordinates, or the bare strings ``"WAIT"``, ``"FAIL"``, ``"DONE"``. Its space is a subset of
ours, so every OSWorld action converts; the reverse holds for the desktop kinds it can express.

Conventions:

* ``DRAG_TO(x, y)`` drags from the current cursor position, so it becomes ``Drag(start=None)``.
* ``SCROLL(dx, dy)`` follows pyautogui: ``dy > 0`` scrolls up, ``dx > 0`` scrolls right, and the
  magnitude is the amount; a missing one counts as 0. One OSWorld action becomes one action here,
  so a diagonal scroll (both non-zero) is refused rather than split.
* ``to_osworld`` drops what computer_13 cannot carry and what does not change the screen (a wait's
  length, a done answer, a fail reason) and refuses what would change it (a drag with a start,
  a scroll or mouse_down/mouse_up at a position, mobile actions): send a ``mouse_move`` first.
* ``type(press_enter=True)`` becomes ``TYPING`` of the text plus ``"\\n"``, which pyautogui types
  as Enter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cua_core.actions.checks import check_int, describe
from cua_core.actions.coords import from_pixels, to_pixels
from cua_core.actions.keys import normalize_key
from cua_core.actions.records import (
    MAX_SCROLL_AMOUNT,
    Action,
    Click,
    Done,
    Drag,
    Fail,
    KeyDown,
    KeyPress,
    KeyUp,
    MouseDown,
    MouseMove,
    MouseUp,
    Scroll,
    TypeText,
    Wait,
)
from cua_core.errors import ActionError

__all__ = ["OSWORLD_ACTION_TYPES", "from_osworld", "to_osworld"]

# Each action_type with its allowed and its required parameters.
_PARAMETERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "MOVE_TO": (frozenset({"x", "y"}), frozenset({"x", "y"})),
    "CLICK": (frozenset({"button", "x", "y", "num_clicks"}), frozenset()),
    "MOUSE_DOWN": (frozenset({"button"}), frozenset()),
    "MOUSE_UP": (frozenset({"button"}), frozenset()),
    "RIGHT_CLICK": (frozenset({"x", "y"}), frozenset()),
    "DOUBLE_CLICK": (frozenset({"x", "y"}), frozenset()),
    "DRAG_TO": (frozenset({"x", "y"}), frozenset({"x", "y"})),
    "SCROLL": (frozenset({"dx", "dy"}), frozenset()),
    "TYPING": (frozenset({"text"}), frozenset({"text"})),
    "PRESS": (frozenset({"key"}), frozenset({"key"})),
    "KEY_DOWN": (frozenset({"key"}), frozenset({"key"})),
    "KEY_UP": (frozenset({"key"}), frozenset({"key"})),
    "HOTKEY": (frozenset({"keys"}), frozenset({"keys"})),
    "WAIT": (frozenset(), frozenset()),
    "FAIL": (frozenset(), frozenset()),
    "DONE": (frozenset(), frozenset()),
}
OSWORLD_ACTION_TYPES: tuple[str, ...] = tuple(_PARAMETERS)
"""Every computer_13 ``action_type``, in OSWorld's order."""

# Canonical key names pyautogui spells differently (it has no "super", "menu" or keypad enter).
_PYAUTOGUI_KEYS = {"super": "win", "menu": "apps", "kp_enter": "enter"}


def _read(data: object) -> tuple[str, Mapping[str, Any]]:
    if isinstance(data, str):
        data = {"action_type": data}
    if not isinstance(data, Mapping):
        raise ActionError(
            f"OSWorld action: {describe(data)} is neither a dict with 'action_type' nor one of 'WAIT', 'FAIL', 'DONE'"
        )
    extra = [key for key in data if key not in ("action_type", "parameters")]
    if extra:
        raise ActionError(f"OSWorld action: unknown key {describe(extra[0])}; allowed keys: action_type, parameters")
    action_type = data.get("action_type")
    if not isinstance(action_type, str) or action_type not in _PARAMETERS:
        raise ActionError(
            f"OSWorld action: unknown action_type {describe(action_type)}; known: {', '.join(OSWORLD_ACTION_TYPES)}"
        )
    parameters = data.get("parameters", {})
    if parameters is None:
        parameters = {}
    if not isinstance(parameters, Mapping):
        raise ActionError(f"OSWorld {action_type}: parameters {describe(parameters)} is not a dict")
    allowed, required = _PARAMETERS[action_type]
    unknown = [name for name in parameters if name not in allowed]
    if unknown:
        raise ActionError(
            f"OSWorld {action_type}: unknown parameter {describe(unknown[0])}; "
            f"allowed: {', '.join(sorted(allowed)) or 'none'}"
        )
    missing = sorted(required - parameters.keys())
    if missing:
        raise ActionError(f"OSWorld {action_type}: missing parameter {missing[0]!r}")
    return action_type, parameters


def _scroll(parameters: Mapping[str, Any]) -> Scroll:
    limit = MAX_SCROLL_AMOUNT
    dx = check_int(parameters.get("dx", 0), "dx", -limit, limit)
    dy = check_int(parameters.get("dy", 0), "dy", -limit, limit)
    if dx and dy:
        raise ActionError(
            f"dx={dx} and dy={dy} are both non-zero; one action scrolls one axis, send two SCROLL actions"
        )
    if dy:
        return Scroll("up" if dy > 0 else "down", abs(dy))
    if dx:
        return Scroll("right" if dx > 0 else "left", abs(dx))
    raise ActionError("dx and dy are both 0; nothing to scroll")


def _convert(action_type: str, parameters: Mapping[str, Any], width: int, height: int) -> Action:
    point = None
    if "x" in parameters or "y" in parameters:
        if not {"x", "y"} <= parameters.keys():
            raise ActionError("x and y must be given together")
        point = from_pixels(parameters["x"], parameters["y"], width, height)
    match action_type:
        case "MOVE_TO":
            assert point is not None  # required parameters were checked
            return MouseMove(point)
        case "CLICK":
            return Click(point, parameters.get("button", "left"), parameters.get("num_clicks", 1))
        case "MOUSE_DOWN":
            return MouseDown(parameters.get("button", "left"))
        case "MOUSE_UP":
            return MouseUp(parameters.get("button", "left"))
        case "RIGHT_CLICK":
            return Click(point, "right")
        case "DOUBLE_CLICK":
            return Click(point, "left", 2)
        case "DRAG_TO":
            assert point is not None
            return Drag(None, point)
        case "SCROLL":
            return _scroll(parameters)
        case "TYPING":
            return TypeText(parameters["text"])
        case "PRESS":
            return KeyPress((normalize_key(parameters["key"], "key"),))
        case "KEY_DOWN":
            return KeyDown(normalize_key(parameters["key"], "key"))
        case "KEY_UP":
            return KeyUp(normalize_key(parameters["key"], "key"))
        case "HOTKEY":
            keys = parameters["keys"]
            if isinstance(keys, str) or not isinstance(keys, Sequence):
                raise ActionError(f"keys: {describe(keys)} is not a list of key names")
            return KeyPress(tuple(keys))
        case "WAIT":
            return Wait()
        case "FAIL":
            return Fail()
        case _:
            return Done()


def from_osworld(data: object, width: int, height: int) -> Action:
    """The unified action for an OSWorld computer_13 action on a ``width`` x ``height`` screen."""
    action_type, parameters = _read(data)
    try:
        return _convert(action_type, parameters, width, height)
    except ActionError as error:
        raise ActionError(f"OSWorld {action_type}: {error}") from None


def _pyautogui_key(key: str) -> str:
    return _PYAUTOGUI_KEYS.get(key, key)


def _refuse(action: Action, reason: str) -> ActionError:
    return ActionError(f"{action.kind} cannot be sent to OSWorld's computer_13: {reason}")


def to_osworld(action: Action, width: int, height: int) -> dict[str, Any]:
    """The OSWorld computer_13 dict for ``action`` on a ``width`` x ``height`` screen."""
    parameters: dict[str, Any]
    match action:
        case Click(coordinate=point, button=button, clicks=clicks):
            parameters = {"button": button}
            if point is not None:
                parameters["x"], parameters["y"] = to_pixels(point, width, height)
            parameters["num_clicks"] = clicks
            return {"action_type": "CLICK", "parameters": parameters}
        case MouseMove(coordinate=point):
            x, y = to_pixels(point, width, height)
            return {"action_type": "MOVE_TO", "parameters": {"x": x, "y": y}}
        case MouseDown() | MouseUp():
            if action.coordinate is not None:
                raise _refuse(action, "it presses where the cursor is; mouse_move there first")
            action_type = "MOUSE_DOWN" if isinstance(action, MouseDown) else "MOUSE_UP"
            return {"action_type": action_type, "parameters": {"button": action.button}}
        case Drag(start=start, end=end, button=button):
            if start is not None:
                raise _refuse(
                    action,
                    "DRAG_TO starts where the cursor is; mouse_move to start first, then drag with start=None",
                )
            if button != "left":
                raise _refuse(action, f"DRAG_TO drags with the left button only, not {button!r}")
            x, y = to_pixels(end, width, height)
            return {"action_type": "DRAG_TO", "parameters": {"x": x, "y": y}}
        case Scroll(direction=direction, amount=amount, coordinate=point):
            if point is not None:
                raise _refuse(action, "SCROLL scrolls where the cursor is; mouse_move there first")
            sign = 1 if direction in ("up", "right") else -1
            vertical = direction in ("up", "down")
            dx, dy = (0, sign * amount) if vertical else (sign * amount, 0)
            return {"action_type": "SCROLL", "parameters": {"dx": dx, "dy": dy}}
        case TypeText(text=text, press_enter=press_enter):
            typed = text + "\n" if press_enter else text
            return {"action_type": "TYPING", "parameters": {"text": typed}}
        case KeyPress(keys=keys):
            names = [_pyautogui_key(key) for key in keys]
            if len(names) == 1:
                return {"action_type": "PRESS", "parameters": {"key": names[0]}}
            return {"action_type": "HOTKEY", "parameters": {"keys": names}}
        case KeyDown(key=key):
            return {"action_type": "KEY_DOWN", "parameters": {"key": _pyautogui_key(key)}}
        case KeyUp(key=key):
            return {"action_type": "KEY_UP", "parameters": {"key": _pyautogui_key(key)}}
        case Wait():
            return {"action_type": "WAIT", "parameters": {}}
        case Done():
            return {"action_type": "DONE", "parameters": {}}
        case Fail():
            return {"action_type": "FAIL", "parameters": {}}
        case _:
            raise _refuse(action, "computer_13 has no such action")
