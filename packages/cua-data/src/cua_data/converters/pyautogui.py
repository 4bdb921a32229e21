"""pyautogui code, as Aguvis, OpenCUA, ScaleCUA and OSWorld record actions, into unified actions.

The code comes from datasets and model outputs, so it is untrusted: it is read with ``ast`` and
only literal arguments are accepted (``ast.literal_eval`` per argument); nothing is ever executed.
What cannot be mapped is returned by *form* (``"pyautogui.locateOnScreen"``,
``"pyautogui.click: non-literal argument"``) so a converter can count it in its report and skip the
record, never drop the action silently. Whether ``x, y`` are relative ``[0, 1]`` (Aguvis, OpenCUA,
ScaleCUA) or pixels (OSWorld) is the caller's knowledge, given in :class:`CodeContext`. Below the
parser: what every converter shares (a ``use`` row ended as CUA-Lite ends them, image lookup).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from cua_core import ActionError
from cua_core import actions as ua

_SWIPE_TRAVEL = 500.0  # a phone scroll with no start point swipes through the centre, half a screen
_SWIPE_SCROLL_AMOUNT = 3  # ScaleCUA's web swipe carries no wheel count
_IMPORTS = {"pyautogui", "time"}  # harmless imports that recorded code starts with
_MOBILE_KEYS = {"home", "back", "recent", "menu", "enter"}
_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
_XY = ("x", "y")
_P, _AGENT, _M = frozenset({"", "pyautogui"}), frozenset({"", "computer", "mobile"}), frozenset({"", "mobile"})
# name -> (modules it may be called from, its parameters in pyautogui's order)
_CALLS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "click": (_P, (*_XY, "clicks", "interval", "button", "duration")),
    "moveTo": (_P, (*_XY, "duration")),
    "dragTo": (_P, (*_XY, "duration", "button")),
    "mouseDown": (_P, (*_XY, "button", "duration")),
    "mouseUp": (_P, (*_XY, "button", "duration")),
    "scroll": (_P, ("clicks", *_XY, "page")),
    "vscroll": (_P, ("clicks", *_XY)),
    "hscroll": (_P, ("clicks", *_XY, "page")),
    "write": (_P, ("message", "interval")),
    "typewrite": (_P, ("message", "interval")),
    "press": (_P, ("keys", "presses", "interval")),
    "hotkey": (_P, ("keys", "interval")),
    "key": (frozenset({""}), ("keys",)),
    "keyDown": (_P, ("key",)),
    "keyUp": (_P, ("key",)),
    "sleep": (frozenset({"time", "pyautogui"}), ("seconds",)),
    "wait": (_AGENT, ("seconds", "duration")),
    "terminate": (_AGENT, ("status", "answer", "reason")),
    "answer": (_AGENT, ("text",)),
    "response": (_AGENT, ("text",)),
    "swipe": (_M, ("from_coord", "to_coord", "direction", "amount", "duration")),
    "long_press": (_M, (*_XY, "duration")),
    "open_app": (_M, ("app_name",)),
}
_CALLS |= dict.fromkeys(("doubleClick", "tripleClick"), (_P, (*_XY, "interval", "button", "duration")))
_CALLS |= dict.fromkeys(("rightClick", "middleClick"), (_P, (*_XY, "interval", "duration")))
_CALLS |= dict.fromkeys(("home", "back", "recent", "menu"), (_M, ()))
_CLICKS: dict[str, tuple[int, str | None]] = {"click": (1, None), "doubleClick": (2, None), "tripleClick": (3, None)}
_CLICKS |= {"rightClick": (1, "right"), "middleClick": (1, "middle")}


@dataclass(frozen=True)
class CodeContext:
    """How to read the code: the platform (taps on mobile) and what ``x, y`` numbers mean."""

    platform: str = "desktop"
    relative: bool = True  # x, y in [0, 1]; else pixels on a ``size`` screen
    size: tuple[int, int] | None = None
    scroll_up_positive: bool = True  # pyautogui's sign; ScaleCUA's desktop grammar is the opposite
    # For a LiteSample row (a dataset converter): what CUA-Lite's tools cannot hold (open_app: its mobile
    # tool has no launch) is unmapped, as the row could not carry it; a model's output (False) gets it.
    lite: bool = False


@dataclass(frozen=True)
class Unmapped:
    form: str
    detail: str


@dataclass
class ParsedCode:
    """Executable actions in order, the episode end (terminate/answer) if any, and what failed."""

    actions: list[ua.Action] = field(default_factory=list)
    end: ua.Done | ua.Fail | None = None
    unmapped: list[Unmapped] = field(default_factory=list)


class _Bad(Exception):
    def __init__(self, category: str, detail: str) -> None:
        super().__init__(detail)
        self.category, self.detail = category, detail


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _point(x: Any, y: Any, ctx: CodeContext) -> ua.Point:
    if isinstance(x, list | tuple) and len(x) == 2 and y is None:
        x, y = x  # click((x, y)) is pyautogui too
    if not (_number(x) and _number(y)):
        raise _Bad("invalid arguments", f"coordinate ({x!r}, {y!r}) is not two numbers")
    if ctx.relative:
        if not (0 <= x <= 1 and 0 <= y <= 1):
            raise _Bad("coordinate outside the screen", f"({x}, {y}) is outside the relative range [0, 1]")
        return ua.Point(x * 1000, y * 1000)
    try:
        return ua.from_pixels(x, y, *(ctx.size or (0, 0)))
    except ActionError as exc:
        raise _Bad("coordinate outside the screen", str(exc)) from None


def _maybe_point(a: Any, ctx: CodeContext) -> ua.Point | None:
    return None if a.get("x") is None and a.get("y") is None else _point(a.get("x"), a.get("y"), ctx)


def _keys(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple) and value and all(isinstance(k, str) for k in value):
        return list(value)
    raise _Bad("invalid arguments", f"keys {value!r} are not key names")


def _centre_swipe(direction: str, travel: float, at: ua.Point | None) -> ua.Swipe:
    x, y = (at.x, at.y) if at is not None else (500.0, 500.0)
    # The finger moves against the content: to scroll down, it slides up.
    dx, dy = {"down": (0, -1), "up": (0, 1), "right": (-1, 0), "left": (1, 0)}[direction]
    ends = [
        (min(1000.0, max(0.0, x + s * dx * travel / 2)), min(1000.0, max(0.0, y + s * dy * travel / 2)))
        for s in (-1, 1)
    ]
    return ua.Swipe(ua.Point(*ends[0]), ua.Point(*ends[1]))


def _scroll(name: str, a: Any, ctx: CodeContext) -> list[ua.Action]:
    amount = a.get("clicks")
    if amount is None and _number(a.get("page")):
        amount = 1 if a["page"] > 0 else -1  # Aguvis android_control: scroll(page=+-0.1)
    if not _number(amount) or amount == 0:
        raise _Bad("no direction", f"scroll amount {amount!r} gives no direction")
    if name == "hscroll":
        direction = "right" if amount > 0 else "left"
    else:
        direction = "up" if (amount > 0) == ctx.scroll_up_positive else "down"
    at = _maybe_point(a, ctx)
    if ctx.platform == "mobile":
        return [_centre_swipe(direction, _SWIPE_TRAVEL, at)]
    return [ua.Scroll(cast(Any, direction), max(1, round(abs(amount))), at)]


def _swipe(a: Any, mobile: bool, ctx: CodeContext) -> list[ua.Action]:
    if a.get("from_coord") is not None or a.get("to_coord") is not None:
        pairs = [a.get("from_coord"), a.get("to_coord")]
        if not all(isinstance(p, list | tuple) and len(p) == 2 for p in pairs):
            raise _Bad("invalid arguments", f"swipe {pairs!r} is not two [x, y] pairs")
        start, end = (_point(p[0], p[1], ctx) for p in cast(list[Sequence[Any]], pairs))
        return [ua.Swipe(start, end)] if mobile else [ua.Drag(start, end)]
    direction, amount = a.get("direction"), a.get("amount", 0.5)
    if direction not in _OPPOSITE or not _number(amount) or not 0 < amount <= 1:
        raise _Bad("invalid arguments", f"swipe direction {direction!r}, amount {amount!r}")
    if mobile:
        return [_centre_swipe(_OPPOSITE[direction], amount * 1000, None)]
    # ScaleCUA web: a finger swipe up shows what is below, so the page scrolls down.
    return [ua.Scroll(cast(Any, _OPPOSITE[direction]), _SWIPE_SCROLL_AMOUNT)]


def _terminal(name: str, a: Any) -> ua.Done | ua.Fail:
    if name in ("answer", "response"):
        if not isinstance(a.get("text"), str):
            raise _Bad("invalid arguments", f"answer {a.get('text')!r} is not text")
        return ua.Done(a["text"])
    status = str(a.get("status", "success")).lower()
    if status == "success":
        return ua.Done(None if a.get("answer") is None else str(a["answer"]))
    if status in ("failure", "fail"):
        return ua.Fail(None if a.get("reason") is None else str(a["reason"]))
    raise _Bad("invalid arguments", f"terminate status {status!r} is not success or failure")


def _act(name: str, a: Any, ctx: CodeContext) -> list[ua.Action] | ua.Done | ua.Fail:
    """One call's meaning; _Bad names why it has none on this platform."""
    mobile = ctx.platform == "mobile"
    if mobile and name in ("moveTo", "dragTo", "mouseDown", "mouseUp", "hotkey", "key", "keyDown", "keyUp"):
        raise _Bad("not on mobile", f"{name} has no touchscreen equivalent")
    if not mobile and name in ("home", "back", "recent", "menu", "long_press"):
        raise _Bad(f"not on {ctx.platform}", f"{name} is a phone gesture")
    if name in _CLICKS:
        count, fixed = _CLICKS[name]
        count, button, point = a.get("clicks", count), fixed or a.get("button", "left"), _maybe_point(a, ctx)
        if not isinstance(count, int):
            raise _Bad("invalid arguments", f"clicks={count!r} is not a count")
        if not mobile:
            return [ua.Click(point, cast(Any, button), count)]
        if point is None or (button == "left" and count > 2) or button == "middle":
            raise _Bad("not on mobile", f"{name} without a point or as a {button} x{count} click")
        return [ua.LongPress(point)] if button == "right" else [ua.Tap(point, count)]
    if name in ("moveTo", "dragTo", "mouseDown", "mouseUp"):
        point = _maybe_point(a, ctx)
        if name in ("moveTo", "dragTo") and point is None:
            raise _Bad("invalid arguments", f"{name} needs x and y")
        if name == "moveTo":
            return [ua.MouseMove(cast(ua.Point, point))]
        if name == "dragTo":
            return [ua.Drag(None, cast(ua.Point, point), a.get("button", "left"))]
        return [(ua.MouseDown if name == "mouseDown" else ua.MouseUp)(a.get("button", "left"), point)]
    if name in ("scroll", "vscroll", "hscroll"):
        return _scroll(name, a, ctx)
    if name in ("write", "typewrite"):
        message = a.get("message")
        if isinstance(message, list) and not mobile:
            return [ua.KeyPress((k,)) for k in _keys(message)]  # typewrite(["a", "enter"]) presses keys
        if not isinstance(message, str):
            raise _Bad("invalid arguments", f"message {message!r} is not text")
        return [ua.TypeText(message)]
    if name == "press":
        keys, presses = _keys(a.get("keys")), a.get("presses", 1)
        if not isinstance(presses, int) or isinstance(presses, bool) or not 1 <= presses <= 50:
            raise _Bad("invalid arguments", f"presses={presses!r} is not 1..50")
        if not mobile:
            return [ua.KeyPress((k,)) for k in keys for _ in range(presses)]  # a list presses each in turn
        if not all(k.lower() in _MOBILE_KEYS for k in keys):
            raise _Bad("not on mobile", f"key {keys!r} is not a phone button")
        return [ua.SystemButton(cast(Any, k.lower())) for k in keys for _ in range(presses)]
    if name in ("hotkey", "key"):
        chord: Any = a.get("*") or a.get("keys")
        if isinstance(chord, list) and len(chord) == 1 and isinstance(chord[0], list | tuple):
            chord = chord[0]  # hotkey(["ctrl", "c"]) (OpenCUA)
        if name == "key" and isinstance(chord, str):
            return [ua.KeyPress(ua.split_key_combo(chord))]  # ScaleCUA key("ctrl+s")
        return [ua.KeyPress(tuple(_keys(chord)))]
    if name in ("keyDown", "keyUp"):
        return [(ua.KeyDown if name == "keyDown" else ua.KeyUp)(a.get("key"))]
    if name in ("sleep", "wait"):
        return [ua.Wait(a.get("seconds", a.get("duration", 1.0)))]
    if name in ("home", "back", "recent", "menu"):
        return [ua.SystemButton(cast(Any, name))]
    if name == "long_press":
        return [ua.LongPress(_point(a.get("x"), a.get("y"), ctx), a.get("duration", 1.0))]
    if name == "swipe":
        return _swipe(a, mobile, ctx)
    if name in ("terminate", "answer", "response"):
        return _terminal(name, a)
    if ctx.lite:  # open_app
        raise _Bad("", "CUA-Lite's mobile tool has no action that launches an app")
    return [ua.OpenApp(a.get("app_name"))]


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _call(name: str, call: ast.Call, ctx: CodeContext) -> list[ua.Action] | ua.Done | ua.Fail:
    module, _, function = name.rpartition(".")
    if function not in _CALLS or module not in _CALLS[function][0]:
        raise _Bad("", "unknown call")
    params = _CALLS[function][1]
    try:
        if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
            raise ValueError("unpacking")
        args = [ast.literal_eval(arg) for arg in call.args]  # literals only: nothing is evaluated
        bound = {str(k.arg): ast.literal_eval(k.value) for k in call.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _Bad("non-literal argument", "only literal arguments are read") from None
    if any(key not in params for key in bound):
        raise _Bad("invalid arguments", f"unknown argument; {name} takes {', '.join(params) or 'none'}")
    if function == "hotkey":
        bound["*"] = args  # hotkey("ctrl", "c"): every positional argument is a key
    elif len(args) > len(params) or any(p in bound for p in params[: len(args)]):
        raise _Bad("invalid arguments", f"{name} takes {', '.join(params) or 'no arguments'}")
    else:
        bound |= dict(zip(params, args, strict=False))
    try:
        return _act(function, bound, ctx)
    except ActionError as exc:
        raise _Bad("invalid arguments", str(exc)) from None


def parse_code(code: str, ctx: CodeContext) -> ParsedCode:
    """Read ``code`` statement by statement; never raises on bad input, never executes it."""
    out = ParsedCode()
    try:
        tree = ast.parse(code if isinstance(code, str) else "\0")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        out.unmapped.append(Unmapped("syntax error", f"{str(code)[:120]!r}: {exc}"))
        return out
    for statement in tree.body:
        text = ast.unparse(statement)[:160]
        if isinstance(statement, ast.Pass) or (
            isinstance(statement, ast.Import) and all(alias.name in _IMPORTS for alias in statement.names)
        ):
            continue
        if isinstance(statement, ast.Import | ast.ImportFrom):
            modules = [statement.module or ""] if isinstance(statement, ast.ImportFrom) else []
            modules += [alias.name for alias in statement.names if isinstance(statement, ast.Import)]
            out.unmapped.append(Unmapped(f"import {', '.join(modules)}", text))
            continue
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            out.unmapped.append(Unmapped(f"python {type(statement).__name__.lower()}", text))
            continue
        name = _dotted(statement.value.func)
        try:
            if name is None:
                name = ast.unparse(statement.value.func)[:60]
                raise _Bad("", "not a plain function name; nothing is evaluated")
            result = _call(name, statement.value, ctx)
        except _Bad as bad:
            form = f"{name}: {bad.category}" if bad.category else str(name)
            out.unmapped.append(Unmapped(form, f"{text}: {bad.detail}"))
            continue
        if out.end is not None:
            out.unmapped.append(Unmapped("action after terminate", text))
        elif isinstance(result, ua.Done | ua.Fail):
            out.end = result
        else:
            out.actions.extend(result)
    return out
