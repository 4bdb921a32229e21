"""Cua's text: its action calls (``click(x, y)``, ``type(...)``) read as unified actions
(``cua_actions``), and the prompt strings its dataloader hands a policy."""

from __future__ import annotations

import ast
import base64
import io
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from PIL import Image

from cua_core import COORD_MAX, Action, ActionError, action_from_dict, from_pixels, parse_actions

_ACTION_TAGS = re.compile(r"<\|action_start\|>(.*?)<\|action_end\|>", re.DOTALL)
_CUA_CALL = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$", re.DOTALL)


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text.strip("'\"")  # Cua writes bare words: key(enter), scroll(down,3)


def _coord(x: Any, y: Any, screen: tuple[int, int] | None, thousandths: bool) -> list[float]:
    """One of Cua's points in ours ([0, 1000] on each axis). Cua's keyword-form client reads a float
    in [0, 1] as a fraction of the screen and any other number as pixels of the screenshot; its
    ``env_config`` form reads numbers as thousandths of the screen, which ours are already."""
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (x, y)):
        raise ActionError(f"a point needs two numbers, got ({x!r}, {y!r})")
    if thousandths:
        return [float(x), float(y)]
    fractions = [isinstance(v, float) and 0.0 <= v <= 1.0 for v in (x, y)]
    if all(fractions):
        return [x * COORD_MAX, y * COORD_MAX]
    if screen is None:
        raise ActionError(f"pixel coordinates ({x}, {y}) need the screen size; give fractions in [0, 1]")
    point = from_pixels(x, y, *screen)
    return [point.x, point.y]


def _cua_dict(name: str, args: list[Any], screen: tuple[int, int] | None, thousandths: bool) -> dict[str, Any] | None:
    """Our action dict for one of Cua's calls (None: not one of Cua's forms)."""
    n = len(args)
    if name in ("click", "right_click", "right_single", "double_click", "left_double") and n == 2:
        button = "right" if name.startswith("right") else "left"
        clicks = 2 if name in ("double_click", "left_double") else 1
        return {
            "kind": "click",
            "coordinate": _coord(args[0], args[1], screen, thousandths),
            "button": button,
            "clicks": clicks,
        }
    if name == "drag" and n == 4:
        return {
            "kind": "drag",
            "start": _coord(args[0], args[1], screen, thousandths),
            "end": _coord(args[2], args[3], screen, thousandths),
        }
    if name == "scroll" and n == 2 and isinstance(args[0], str):  # scroll(direction, amount)
        return {"kind": "scroll", "direction": args[0], "amount": int(args[1])}
    if name == "scroll" and n == 3 and isinstance(args[2], str):  # scroll(x, y, direction): a fixed amount
        return {"kind": "scroll", "direction": args[2], "coordinate": _coord(args[0], args[1], screen, thousandths)}
    if name == "type" and n >= 1:
        return {"kind": "type", "text": ",".join(str(a) for a in args)}
    if name in ("key", "hotkey") and n >= 1:
        keys = [k for a in args for k in str(a).split("+")] if n > 1 or "+" in str(args[0]) else [str(args[0])]
        return {"kind": "key", "keys": keys}
    if name == "wait" and n <= 1:
        return {"kind": "wait", "duration": float(args[0]) if args else 1.0}
    if name == "call_user" and n == 0:
        return {"kind": "wait", "duration": 1.0}  # Cua has no equivalent either: it waits
    if name == "done" and n == 0:
        return {"kind": "done"}
    if name == "fail" and n == 0:
        return {"kind": "fail"}
    return None


def _dict_call(action: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """Cua's action dicts (``{"type": "ClickAction", "x": .., "y": ..}``) as a call."""
    kind = str(action.get("type") or action.get("action_type") or "").lower().replace("_", "")
    kind = kind.removesuffix("action")
    x, y = action.get("x", 0), action.get("y", 0)
    calls: dict[str, Callable[[], tuple[str, list[Any]]]] = {
        "click": lambda: ("click", [x, y]),
        "rightclick": lambda: ("right_click", [x, y]),
        "doubleclick": lambda: ("double_click", [x, y]),
        "drag": lambda: ("drag", [action.get(k, 0) for k in ("from_x", "from_y", "to_x", "to_y")]),
        "scroll": lambda: ("scroll", [str(action.get("direction", "up")), int(action.get("amount", 1))]),
        "type": lambda: ("type", [str(action.get("text", ""))]),
        "key": lambda: ("key", [str(action.get("key", ""))]),
        "hotkey": lambda: ("hotkey", [str(k) for k in action.get("keys", [])]),
        "wait": lambda: ("wait", [action.get("seconds", 1.0)]),
        "done": lambda: ("done", []),
        "fail": lambda: ("fail", []),
    }
    if kind not in calls:
        raise ActionError(f"unknown Cua action type {action.get('type')!r}; known: {', '.join(sorted(calls))}")
    return calls[kind]()


def _split_args(text: str) -> list[Any]:
    if not text.strip():
        return []
    try:  # a well-formed argument list (quoted strings may hold commas)
        parsed = ast.literal_eval(f"({text},)")
        return list(parsed)
    except (ValueError, SyntaxError):
        return [_literal(a.strip()) for a in text.split(",")]


def cua_actions(
    action: str | Mapping[str, Any], *, screen: tuple[int, int] | None = None, thousandths: bool = False
) -> list[Action]:
    """Our actions for one of Cua's, inside ``<|action_start|>..<|action_end|>`` or not: its
    action strings (``click``, ``right_click``/``right_single``, ``double_click``/``left_double``,
    ``drag``, ``scroll(direction,amount)``/``scroll(x,y,direction)``, ``type``, ``key``,
    ``hotkey(ctrl+c)``/``hotkey(ctrl,c)``, ``wait``, ``call_user``, ``done``), its action dicts
    (``{"type": "ClickAction", "x": .., "y": ..}``), or our own action text.

    Coordinates, as Cua's clients read them: by default a float in [0, 1] is a fraction of the
    screen and any other number a pixel of the ``screen`` (width, height); ``thousandths`` (Cua's
    ``env_config`` client) reads them as [0, 1000], as ours are. ``ActionError`` for the unreadable."""
    if isinstance(action, Mapping):
        name, args = _dict_call(action)
    elif isinstance(action, str):
        found = _ACTION_TAGS.search(action)
        text = found.group(1).strip() if found else action.strip()
        call = _CUA_CALL.match(text)
        if call is None:
            return parse_actions(text)
        name, args = call.group(1), _split_args(call.group(2))
    else:
        raise ActionError(f"a Cua action is a string or a dict, got {type(action).__name__}")
    translated = _cua_dict(name, args, screen, thousandths)
    if translated is None:
        if isinstance(action, Mapping):
            raise ActionError(f"cannot read Cua action {dict(action)!r}")
        return parse_actions(text)  # our own syntax (click(x=.., y=..), key("ctrl+c"), ...)
    return [action_from_dict(translated)]


def _action_text(action: str | Mapping[str, Any]) -> str:
    if isinstance(action, str):
        return action
    name, args = _dict_call(action)
    return f"{name}({','.join(str(a) for a in args)})"


def _jpeg_b64(screenshot: Any, width: int, height: int) -> str:
    image: Image.Image
    if isinstance(screenshot, bytes | bytearray | memoryview):
        image = Image.open(io.BytesIO(bytes(screenshot)))
    else:
        image = Image.fromarray(np.asarray(screenshot))
    if image.size != (width, height):
        image = image.resize((width, height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=85)
    return base64.b64encode(out.getvalue()).decode("ascii")


def _vision(observation: Mapping[str, Any], width: int, height: int) -> str:
    shot = observation.get("screenshot")
    return "" if shot is None else f"<|vision_start|>{_jpeg_b64(shot, width, height)}<|vision_end|>"


def _action_tag(text: str) -> str:
    found = _ACTION_TAGS.search(text)
    return found.group(0) if found else f"<|action_start|>{text}<|action_end|>"


def _prompt(instruction: str, steps: Sequence[str], max_hist: int) -> str:
    kept = list(steps)[-(max_hist * 2) :] if len(steps) > max_hist * 2 else list(steps)
    return f"<|instruction|>{instruction}<|instruction_end|>" + "".join(kept)


# -- the client ----------------------------------------------------------------------------------


def _screen_size(observation: Mapping[str, Any]) -> tuple[int, int] | None:
    shot = observation.get("screenshot")
    if shot is None:
        return None
    if isinstance(shot, bytes | bytearray | memoryview):
        size: tuple[int, int] = Image.open(io.BytesIO(bytes(shot))).size  # reads the header only
        return size
    array = np.asarray(shot)
    return int(array.shape[1]), int(array.shape[0])
