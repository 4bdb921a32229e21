"""Unified actions as the device shell commands of Android's ``input`` tool, in pixels of the screen.

One action is one ``adb shell`` call: a compound action (a double tap, text with newlines) is its
commands joined with ``&&``, so it costs one round trip and stops at the first that fails. ``input``
injects one touch point at a time (``InputShellCommand`` builds every motion event with a pointer
count of 1), so a two-finger pinch cannot be sent; nor can a mouse's buttons, held keys or a pointer
that moves without touching. Those are refused with a reason the agent reads, naming what works.
"""

from __future__ import annotations

from cua_bench_android.keycodes import BUTTON_KEYCODES, keycodes
from cua_bench_android.text import Untypeable, text_commands
from cua_core import (
    Action,
    Click,
    CursorPosition,
    Done,
    Drag,
    Fail,
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
    to_pixels,
)

__all__ = ["SUPPORTED", "Refused", "input_command"]

SUPPORTED = (
    "tap, long_press, swipe, type, key (keys with an Android key code), system_button, open_app (by package), "
    "wait, and click (left button, at a coordinate) as taps"
)


class Refused(Exception):
    """An action the device cannot perform through ``input``; the message is the agent's reason."""


def _refuse(kind: str, why: str) -> Refused:
    return Refused(f"{kind}: {why}; the android backend supports {SUPPORTED}")


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def input_command(action: Action, width: int, height: int) -> str | None:
    """The shell command that performs ``action`` on a ``width`` x ``height`` screen; None when the device has
    nothing to do (``wait`` is the caller's to sleep; ``screenshot``, ``done``... are the env server's).

    Raises:
        Refused: the device cannot perform it; the message says why and what it can do.
    """

    def px(point: Point) -> str:
        x, y = to_pixels(point, width, height)
        return f"{x} {y}"

    match action:
        case Tap(coordinate=point, clicks=clicks):
            return " && ".join([f"input tap {px(point)}"] * clicks)
        case Click(coordinate=point, button="left", clicks=clicks) if point is not None:
            return " && ".join([f"input tap {px(point)}"] * clicks)
        case Click(coordinate=None):
            raise _refuse("click", "a phone has no pointer to click where it is: give the click a coordinate")
        case Click(button=button):
            raise _refuse("click", f"a touch screen has no {button} button (a long_press opens context menus)")
        case LongPress(coordinate=point, duration=duration):
            return f"input swipe {px(point)} {px(point)} {_ms(duration)}"
        case Swipe(start=start, end=end, duration=duration):
            return f"input swipe {px(start)} {px(end)} {_ms(duration)}"
        case TypeText(text=text, press_enter=press_enter):
            try:
                commands = text_commands(text)
            except Untypeable as exc:
                raise _refuse("type", str(exc)) from None
            if press_enter:
                commands.append("input keyevent KEYCODE_ENTER")
            return " && ".join(commands) or None
        case KeyPress(keys=keys):
            try:
                codes = keycodes(keys)
            except LookupError as exc:
                raise _refuse("key", str(exc)) from None
            if len(codes) == 1:
                return f"input keyevent {codes[0]}"
            return "input keycombination " + " ".join(codes)  # Android 13 and later
        case SystemButton(button=button):
            return f"input keyevent {BUTTON_KEYCODES[button]}"
        case Pinch():
            raise _refuse("pinch", "adb's `input` injects one touch point at a time, so a two-finger pinch cannot be "
                                   "performed (zoom with a double tap where the app allows it)")  # fmt: skip
        case Scroll():
            raise _refuse("scroll", "a phone scrolls by dragging its content: send a swipe")
        case Drag():
            raise _refuse("drag", "send a swipe (a slide of one finger) or a long_press")
        case MouseMove() | MouseDown() | MouseUp():
            raise _refuse(action.kind, "a touch screen has no pointer that moves or holds without a gesture")
        case KeyDown() | KeyUp() | HoldKey():
            raise _refuse(action.kind, "adb's `input` presses and releases keys at once; it cannot hold one")
        case Wait() | Screenshot() | CursorPosition() | Done() | Fail():
            return None
    raise _refuse(getattr(action, "kind", type(action).__name__), "not an action the android backend knows")
