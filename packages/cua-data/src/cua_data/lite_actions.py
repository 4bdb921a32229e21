"""CUA-Lite's action dialect: how unified actions are written inside a LiteSample tool call.

CUA-Lite batches GUI actions into one tool call per turn: ``computer`` on desktop and browser,
``mobile`` on phones, each ``{"actions": [{"action": "click", "coordinate": [x, y]}, ...]}``
(lite/core/tools/action_space/base.py). Our records carry the same meaning under a few other
names (``Drag.start`` is their ``start_coordinate``, ``Pinch.scale`` their direction and amount,
key ``super`` their ``meta``); this module is the one place that translates, both ways, and says
exactly what cannot be written in their dialect instead of guessing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from cua_core import (
    Action,
    ActionError,
    Click,
    CursorPosition,
    Drag,
    HoldKey,
    KeyDown,
    KeyPress,
    KeyUp,
    LongPress,
    MouseDown,
    MouseMove,
    MouseUp,
    Pinch,
    Point,
    Screenshot,
    Scroll,
    Swipe,
    SystemButton,
    Tap,
    TypeText,
    Wait,
)

__all__ = [
    "LITE_KEY_NAMES",
    "batch_tool_for",
    "from_lite_action",
    "from_lite_tool_call",
    "to_lite_action",
    "to_lite_tool_call",
]

# Our canonical key names that CUA-Lite spells differently, and those it has no name for.
_KEY_TO_LITE = {"super": "meta", "escape": "esc"}
_KEY_FROM_LITE = {v: k for k, v in _KEY_TO_LITE.items()}
_NOT_IN_LITE = {"numlock", "pause", "scrolllock"}
LITE_KEY_NAMES = frozenset(
    [
        "ctrl",
        "alt",
        "shift",
        "meta",
        "enter",
        "tab",
        "space",
        "backspace",
        "delete",
        "esc",
        "up",
        "down",
        "left",
        "right",
        "home",
        "end",
        "pageup",
        "pagedown",
        "insert",
        "capslock",
        "menu",
        "clear",
        "printscreen",
        "kp_enter",
        "volumeup",
        "volumedown",
        "volumemute",
        "playpause",
        "nexttrack",
        "prevtrack",
    ]
    + [f"f{n}" for n in range(1, 25)]
)


def batch_tool_for(platform: str) -> str:
    """The action-batch tool of a platform: ``mobile`` on phones, ``computer`` elsewhere."""
    return "mobile" if platform == "mobile" else "computer"


def _xy(point: Point) -> list[int]:
    # CUA-Lite coordinates are integers in [0, 1000]: 1/1000 of the screen is its resolution.
    return [round(point.x), round(point.y)]


def _lite_keys(keys: Iterable[str], where: str) -> list[str]:
    out = []
    for key in keys:
        if key in _NOT_IN_LITE:
            raise ActionError(f"{where}: key {key!r} has no name in CUA-Lite's key vocabulary")
        out.append(_KEY_TO_LITE.get(key, key))
    return out


def _our_keys(keys: Any, where: str) -> tuple[str, ...]:
    if isinstance(keys, str):
        keys = [keys]
    if not isinstance(keys, Sequence) or not keys:
        raise ActionError(f"{where}.keys: must be a non-empty list of key names, got {keys!r}")
    return tuple(_KEY_FROM_LITE.get(str(k).lower(), str(k)) for k in keys)


def to_lite_action(action: Action, platform: str = "desktop") -> list[dict[str, Any]]:
    """CUA-Lite action dicts for one of ours (usually one; a positioned mouse_down is two)."""
    mobile = platform == "mobile"
    where = f"{action.kind} on {platform}"
    match action:
        case Click(coordinate=c, button=b, clicks=n) if not mobile:
            out: dict[str, Any] = {"action": "click"}
            if c is not None:
                out["coordinate"] = _xy(c)
            if b != "left":
                out["button"] = b
            if n != 1:
                out["clicks"] = n
            return [out]
        case Tap(coordinate=c, clicks=n) if mobile:
            return [{"action": "tap", "coordinate": _xy(c), "clicks": n}]
        case MouseMove(coordinate=c) if not mobile:
            return [{"action": "mouse_move", "coordinate": _xy(c)}]
        case MouseDown(button=b, coordinate=c) | MouseUp(button=b, coordinate=c) if not mobile:
            press = {"action": action.kind, **({"button": b} if b != "left" else {})}
            return [{"action": "mouse_move", "coordinate": _xy(c)}, press] if c is not None else [press]
        case Drag(start=s, end=e, button=b):
            out = {"action": "drag", "coordinate": _xy(e)}
            if s is not None:
                out["start_coordinate"] = _xy(s)
            elif mobile:
                raise ActionError(f"{where}: a mobile drag needs a start point")
            if b != "left":
                if mobile:
                    raise ActionError(f"{where}: a mobile drag has no mouse button")
                out["button"] = b
            return [out]
        case Scroll(direction=d, amount=n, coordinate=c) if not mobile:
            out = {"action": "scroll", "direction": d, "amount": n}
            if c is not None:
                out["coordinate"] = _xy(c)
            return [out]
        case TypeText(text=t, press_enter=enter):
            if mobile:
                typed: list[dict[str, Any]] = [{"action": "type", "text": t}]
                return typed + ([{"action": "system_button", "button": "Enter"}] if enter else [])
            return [{"action": "type", "text": t, **({"press_enter": True} if enter else {})}]
        case KeyPress(keys=k) if not mobile:
            return [{"action": "key", "keys": _lite_keys(k, where)}]
        case KeyDown(key=k) | KeyUp(key=k) if not mobile:
            return [{"action": action.kind, "keys": _lite_keys([k], where)}]
        case HoldKey(keys=k, duration=d) if not mobile:
            return [{"action": "hold_key", "keys": _lite_keys(k, where), "duration": d}]
        case Wait(duration=d):
            return [{"action": "wait", "duration": d}]
        case Screenshot():
            return [{"action": "screenshot"}]
        case CursorPosition() if not mobile:
            return [{"action": "cursor_position"}]
        case LongPress(coordinate=c, duration=d) if mobile:
            return [{"action": "long_press", "coordinate": _xy(c), "duration": d}]
        case Swipe(start=s, end=e) if mobile:
            return [{"action": "swipe", "start_coordinate": _xy(s), "coordinate": _xy(e)}]
        case Pinch(center=c, scale=scale) if mobile:
            if scale == 1:
                raise ActionError(f"{where}: a pinch of scale 1 moves nothing; CUA-Lite cannot write it")
            direction = "in" if scale < 1 else "out"
            return [
                {
                    "action": "pinch",
                    "coordinate": _xy(c),
                    "direction": direction,
                    "amount": round(abs(1 - scale) * 100),
                }
            ]
        case SystemButton(button=b) if mobile:
            if b not in ("home", "back", "enter", "menu", "recent"):
                raise ActionError(
                    f"{where}: system button {b!r} is not one of CUA-Lite's Home, Back, Enter, Menu, Recent"
                )
            return [{"action": "system_button", "button": b.capitalize()}]
    if action.kind in ("done", "fail"):
        raise ActionError(
            f"{action.kind}: not a tool call in CUA-Lite; a row ends with an assistant text "
            "(the answer, or 'Done.') and a failure goes to metadata.others"
        )
    raise ActionError(f"{where}: CUA-Lite's {batch_tool_for(platform)!r} tool has no {action.kind!r} action")


def to_lite_tool_call(actions: Sequence[Action], platform: str, call_id: str) -> dict[str, Any]:
    """One assistant tool call carrying ``actions`` in CUA-Lite's batch form."""
    lite = [item for action in actions for item in to_lite_action(action, platform)]
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": batch_tool_for(platform), "arguments": {"actions": lite}},
    }


def _point(value: Any, where: str) -> Point:
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        raise ActionError(f"{where}: must be [x, y] in [0, 1000], got {value!r}")
    return Point(value[0], value[1])


def from_lite_action(data: Mapping[str, Any], tool: str = "computer") -> list[Action]:
    """Our actions for one CUA-Lite action dict (``key_down`` of two keys is two of ours)."""
    if not isinstance(data, Mapping):
        raise ActionError(f"{tool} action: must be a dict, got {type(data).__name__}")
    name = data.get("action")
    where = f"{tool}.{name}"
    get: Any = data.get  # values are validated by the records themselves
    if name == "click":
        c = get("coordinate")
        point = None if c is None else _point(c, f"{where}.coordinate")
        return [Click(point, get("button") or "left", get("clicks") or 1)]
    if name == "tap":
        return [Tap(_point(get("coordinate"), f"{where}.coordinate"), get("clicks") or 1)]
    if name == "mouse_move":
        return [MouseMove(_point(get("coordinate"), f"{where}.coordinate"))]
    if name in ("mouse_down", "mouse_up"):
        cls = MouseDown if name == "mouse_down" else MouseUp
        return [cls(get("button") or "left")]
    if name in ("drag", "swipe"):
        start = get("start_coordinate")
        begin = None if start is None else _point(start, f"{where}.start_coordinate")
        end = _point(get("coordinate"), f"{where}.coordinate")
        if name == "swipe":
            if begin is None:
                raise ActionError(f"{where}.start_coordinate: a swipe needs a start point")
            return [Swipe(begin, end)]
        return [Drag(begin, end, get("button") or "left")]
    if name == "scroll":
        c = get("coordinate")
        return [Scroll(get("direction"), get("amount") or 1, None if c is None else _point(c, f"{where}.coordinate"))]
    if name == "type":
        return [TypeText(get("text"), bool(get("press_enter")))]
    if name == "key":
        return [KeyPress(_our_keys(get("keys"), where))]
    if name in ("key_down", "key_up"):
        cls2 = KeyDown if name == "key_down" else KeyUp
        return [cls2(k) for k in _our_keys(get("keys"), where)]
    if name == "hold_key":
        return [HoldKey(_our_keys(get("keys"), where), get("duration"))]
    if name == "wait":
        return [Wait(get("duration") if get("duration") is not None else 1.0)]
    if name == "screenshot":
        return [Screenshot()]
    if name == "cursor_position":
        return [CursorPosition()]
    if name == "long_press":
        d = get("duration")
        return [LongPress(_point(get("coordinate"), f"{where}.coordinate"), 1.0 if d is None else d)]
    if name == "pinch":
        direction, amount = get("direction"), get("amount") or 25
        if direction not in ("in", "out") or not isinstance(amount, int | float) or not 0 < amount < 100:
            raise ActionError(
                f"{where}: direction must be 'in' or 'out' and amount in (0, 100), got {direction!r}, {amount!r}"
            )
        scale = 1 - amount / 100 if direction == "in" else 1 + amount / 100
        return [Pinch(_point(get("coordinate"), f"{where}.coordinate"), scale)]
    if name == "system_button":
        return [SystemButton(cast(Any, str(get("button")).lower()))]
    raise ActionError(f"{where}: unknown CUA-Lite action {name!r}")


def from_lite_tool_call(function: Mapping[str, Any]) -> list[Action]:
    """Our actions for a ``computer``/``mobile`` tool call's ``function`` dict."""
    tool = function.get("name")
    if tool not in ("computer", "mobile"):
        raise ActionError(f"tool {tool!r} is not an action batch (computer or mobile)")
    arguments = function.get("arguments")
    items = arguments.get("actions") if isinstance(arguments, Mapping) else None
    if not isinstance(items, list) or not items:
        raise ActionError(f"{tool}.arguments.actions: must be a non-empty list, got {items!r}")
    return [action for item in items for action in from_lite_action(item, tool)]
