"""Unified actions to XTest events on the environment's display, over one python-xlib connection.

Events are queued and flushed once per action and synced once per batch, so a click costs a few
hundred microseconds, not a process start (xdotool). Compound actions are the presses a person
would make; anything a desktop cannot do comes back as a reason string, never an exception.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from cua_bench.backends.local.keys import NAMED_KEYSYMS, Keyboard, char_keysym
from cua_core import (
    ACTIONS,
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
    OpenApp,
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

__all__ = ["XInput"]

log = logging.getLogger(__name__)

BUTTONS = {"left": 1, "middle": 2, "right": 3}
SCROLL_BUTTONS = {"up": 4, "down": 5, "left": 6, "right": 7}
DRAG_STEPS = 8
_KNOWN: frozenset[type] = frozenset(ACTIONS.values())


class XInput:
    """Applies actions to one display, remembering held keys and buttons between actions."""

    def __init__(self, conn: Any, width: int, height: int) -> None:
        from Xlib import X
        from Xlib.ext import xtest

        self.conn = conn
        self.width, self.height = width, height
        self.keyboard = Keyboard(conn)
        self.buttons: set[str] = set()
        self.keys: dict[str, tuple[int, bool]] = {}
        self._fake = xtest.fake_input
        self._x = X

    # -- primitives ---------------------------------------------------------------------------

    def _px(self, point: Point | None) -> tuple[int, int] | None:
        return None if point is None else to_pixels(point, self.width, self.height)

    def move(self, at: tuple[int, int] | None) -> None:
        if at is not None:
            self._fake(self.conn, self._x.MotionNotify, x=at[0], y=at[1])

    def button(self, number: int, down: bool) -> None:
        self._fake(self.conn, self._x.ButtonPress if down else self._x.ButtonRelease, number)

    def key(self, keycode: int, down: bool) -> None:
        self._fake(self.conn, self._x.KeyPress if down else self._x.KeyRelease, keycode)

    def _keysym(self, name: str) -> int:
        return NAMED_KEYSYMS[name] if name in NAMED_KEYSYMS else char_keysym(name)

    def press_keys(self, names: tuple[str, ...]) -> list[tuple[int, bool]]:
        """Press a chord in order (a glyph that needs Shift gets it); returns what to release."""
        pressed = [self.keyboard.keycode(self._keysym(name)) for name in names]
        if any(shifted for _, shifted in pressed) and "shift" not in names:
            self.key(self.keyboard.shift, True)
        for code, _ in pressed:
            self.key(code, True)
        return pressed

    def release_keys(self, pressed: list[tuple[int, bool]], names: tuple[str, ...]) -> None:
        for code, _ in reversed(pressed):
            self.key(code, False)
        if any(shifted for _, shifted in pressed) and "shift" not in names:
            self.key(self.keyboard.shift, False)

    def type_text(self, text: str) -> None:
        for char in text:
            code, shifted = self.keyboard.keycode(char_keysym(char))
            if shifted:
                self.key(self.keyboard.shift, True)
            self.key(code, True)
            self.key(code, False)
            if shifted:
                self.key(self.keyboard.shift, False)

    def click(self, at: tuple[int, int] | None, button: str, clicks: int) -> None:
        self.move(at)
        for _ in range(clicks):
            self.button(BUTTONS[button], True)
            self.button(BUTTONS[button], False)

    def drag(self, start: tuple[int, int] | None, end: tuple[int, int], button: str) -> None:
        if start is None:
            pointer = self.conn.screen().root.query_pointer()
            start = (pointer.root_x, pointer.root_y)
        self.move(start)
        self.button(BUTTONS[button], True)
        self.conn.sync()  # the press is seen at the start before any motion
        for step in range(1, DRAG_STEPS + 1):
            self.move((start[0] + (end[0] - start[0]) * step // DRAG_STEPS,
                       start[1] + (end[1] - start[1]) * step // DRAG_STEPS))  # fmt: skip
        self.button(BUTTONS[button], False)

    def release_all(self) -> None:
        """Let go of every held button and key (reset, or an action that failed half way)."""
        for name in list(self.buttons):
            self.button(BUTTONS[name], False)
        for code, shifted in self.keys.values():
            self.key(code, False)
            if shifted:
                self.key(self.keyboard.shift, False)
        self.buttons.clear()
        self.keys.clear()
        self.conn.sync()

    # -- actions ------------------------------------------------------------------------------

    async def apply(self, action: Action) -> str | None:
        kind = getattr(action, "kind", type(action).__name__)
        if type(action) not in _KNOWN:
            return f"{kind}: not an action the local desktop knows"
        try:
            error = await self._apply(action)
        except Exception as exc:  # the X connection failed or a key could not be bound: report it
            log.exception("local desktop: %s failed", kind)
            return f"{kind}: the desktop failed to apply it ({type(exc).__name__}: {exc})"
        self.conn.flush()
        return error

    async def _apply(self, action: Action) -> str | None:
        match action:
            case Click(coordinate=point, button=button, clicks=clicks):
                self.click(self._px(point), button, clicks)
            case Tap(coordinate=point, clicks=clicks):
                self.click(self._px(point), "left", clicks)
            case LongPress(coordinate=point):
                self.click(self._px(point), "right", 1)  # as on the sim desktop: a context menu
            case MouseMove(coordinate=point):
                self.move(self._px(point))
            case MouseDown(button=button, coordinate=point):
                if button in self.buttons:
                    return f"mouse_down: the {button} button is already down; send mouse_up first"
                self.move(self._px(point))
                self.buttons.add(button)
                self.button(BUTTONS[button], True)
            case MouseUp(button=button, coordinate=point):
                if button not in self.buttons:
                    return f"mouse_up: the {button} button is not down (press it with mouse_down first)"
                self.move(self._px(point))
                self.buttons.discard(button)
                self.button(BUTTONS[button], False)
            case Drag(start=start, end=end, button=button):
                self.drag(self._px(start), to_pixels(end, self.width, self.height), button)
            case Swipe(start=start, end=end):
                self.drag(self._px(start), to_pixels(end, self.width, self.height), "left")
            case Scroll(direction=direction, amount=amount, coordinate=point):
                self.move(self._px(point))
                for _ in range(amount):
                    self.button(SCROLL_BUTTONS[direction], True)
                    self.button(SCROLL_BUTTONS[direction], False)
            case TypeText(text=text, press_enter=press_enter):
                self.type_text(text + ("\n" if press_enter else ""))
            case KeyPress(keys=keys):
                self.release_keys(self.press_keys(keys), keys)
            case HoldKey(keys=keys, duration=duration):
                pressed = self.press_keys(keys)
                self.conn.sync()
                try:
                    await asyncio.sleep(duration)
                finally:
                    self.release_keys(pressed, keys)
            case KeyDown(key=key):
                if key in self.keys:
                    return f"key_down: {key!r} is already held; send key_up first"
                self.keys[key] = self.press_keys((key,))[0]
            case KeyUp(key=key):
                if key not in self.keys:
                    return f"key_up: {key!r} is not held (press it with key_down first)"
                self.release_keys([self.keys.pop(key)], (key,))
            case Wait(duration=duration):
                await asyncio.sleep(duration)
            case Pinch():
                return "pinch: the local desktop has no touch screen; zoom with key (e.g. ctrl+plus) or scroll"
            case SystemButton(button=button):
                return f"system_button: the local desktop has no {button!r} phone button; use key (e.g. escape)"
            case OpenApp(app=app):
                return (
                    f"open_app: the local desktop has no app launcher by name ({app!r}); "
                    f"open it from a window or the menu"
                )
            case Screenshot() | CursorPosition() | Done() | Fail():
                return None  # the env server answers these; the desktop has nothing to do
        return None
