"""Unified actions in, pointer and key events out: the one place the action space meets the desktop.

Compound actions are broken into the presses a person would make (a double click is two presses
with a rising click count; a drag is press, moves, release), so widgets only ever see primitive
events. Anything a desktop cannot do comes back as a reason string, never an exception.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from cua_bench.sim.events import MODIFIERS, KeyEvent, char_event
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

if TYPE_CHECKING:
    from cua_bench.sim.desktop import SimDesktop

__all__ = ["ActionInput"]

log = logging.getLogger(__name__)

_SCROLL = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
DRAG_STEPS = 4
_KNOWN: frozenset[type] = frozenset(ACTIONS.values())


class ActionInput:
    """Applies actions to one desktop, remembering held keys and buttons between actions."""

    def __init__(self, desktop: SimDesktop) -> None:
        self.desktop = desktop
        self.buttons: set[str] = set()

    def _px(self, point: Point | None) -> tuple[int, int]:
        if point is None:
            return self.desktop.cursor
        return to_pixels(point, self.desktop.width, self.desktop.height)

    def _mods(self) -> frozenset[str]:
        return frozenset(self.desktop.held & MODIFIERS)

    def apply(self, action: Action) -> str | None:
        kind = getattr(action, "kind", type(action).__name__)
        try:
            return self._apply(action)
        except Exception as exc:  # an app callback failed: report it, keep the desktop alive
            log.exception("sim desktop: %s failed", kind)
            return f"{kind}: the desktop failed to apply it ({type(exc).__name__}: {exc})"

    def _apply(self, action: Action) -> str | None:
        desktop = self.desktop
        if type(action) not in _KNOWN:
            return f"{getattr(action, 'kind', type(action).__name__)}: not an action the sim desktop knows"
        match action:
            case Click(coordinate=point, button=button, clicks=clicks):
                self.click(self._px(point), button, clicks)
            case Tap(coordinate=point, clicks=clicks):
                self.click(self._px(point), "left", clicks, touch="tap")
            case LongPress(coordinate=point):
                self.click(self._px(point), "right", 1, touch="long_press")
            case MouseMove(coordinate=point):
                x, y = self._px(point)
                desktop.events.mouse_move(x, y)
            case MouseDown(button=button, coordinate=point):
                if button in self.buttons:
                    return f"mouse_down: the {button} button is already down; send mouse_up first"
                x, y = self._px(point)
                if point is not None:
                    desktop.events.mouse_move(x, y)
                self.buttons.add(button)
                desktop.events.mouse_down(x, y, button)
            case MouseUp(button=button, coordinate=point):
                if button not in self.buttons:
                    return f"mouse_up: the {button} button is not down (press it with mouse_down first)"
                x, y = self._px(point)
                if point is not None:
                    desktop.events.mouse_move(x, y)
                self.buttons.discard(button)
                desktop.events.mouse_up(x, y, button)
            case Drag(start=start, end=end, button=button):
                self.drag(self._px(start), self._px(end), button)
            case Swipe(start=start, end=end):
                begin, finish = self._px(start), self._px(end)
                if desktop.phone is None or not desktop.phone.swipe(begin, finish):
                    self.drag(begin, finish, "left", touch="swipe")
            case Scroll(direction=direction, amount=amount, coordinate=point):
                x, y = self._px(point)
                dx, dy = _SCROLL[direction]
                desktop.events.scroll(x, y, dx, dy, amount)
            case TypeText(text=text, press_enter=press_enter):
                mods = self._mods()
                for char in text:
                    event = char_event(char, mods)
                    if event.mods & {"ctrl", "alt", "super"}:
                        event = KeyEvent(event.key, event.mods, None)
                    desktop.events.key(event)
                if press_enter:
                    desktop.events.key(KeyEvent("enter", mods))
            case KeyPress(keys=keys) | HoldKey(keys=keys):
                self.chord(keys)
            case KeyDown(key=key):
                if key in desktop.held:
                    return f"key_down: {key!r} is already held; send key_up first"
                desktop.held.add(key)
                if key not in MODIFIERS:
                    desktop.events.key(KeyEvent.press(key, self._mods()))
            case KeyUp(key=key):
                if key not in desktop.held:
                    return f"key_up: {key!r} is not held (press it with key_down first)"
                desktop.held.discard(key)
            case Pinch():
                return "pinch: the sim desktop has no touch screen; zoom with key (e.g. ctrl+plus) or scroll"
            case SystemButton(button=button) if desktop.phone is not None:
                return desktop.phone.system_button(button)
            case SystemButton(button=button):
                return f"system_button: the sim desktop has no {button!r} phone button; use key (e.g. escape)"
            case OpenApp(app=app) if desktop.phone is not None:
                return desktop.phone.launch(app)
            case OpenApp(app=app):
                return f"open_app: the sim desktop opens apps from its windows and menus, not by name ({app!r})"
            case Wait() | Screenshot() | CursorPosition() | Done() | Fail():
                return None  # the env server answers these; the desktop has nothing to do
        return None

    def click(self, at: tuple[int, int], button: str, clicks: int, *, touch: str | None = None) -> None:
        x, y = at
        desktop = self.desktop
        desktop.events.mouse_move(x, y)
        for count in range(1, clicks + 1):
            desktop.events.mouse_down(x, y, button, count, touch=touch)
            desktop.events.mouse_up(x, y, button)

    def drag(self, start: tuple[int, int], end: tuple[int, int], button: str, *, touch: str | None = None) -> None:
        desktop = self.desktop
        desktop.events.mouse_move(*start)
        desktop.events.mouse_down(start[0], start[1], button, touch=touch)
        for step in range(1, DRAG_STEPS + 1):
            x = start[0] + (end[0] - start[0]) * step // DRAG_STEPS
            y = start[1] + (end[1] - start[1]) * step // DRAG_STEPS
            desktop.events.mouse_move(x, y)
        desktop.events.mouse_up(end[0], end[1], button)

    def chord(self, keys: tuple[str, ...]) -> None:
        mods = self._mods() | frozenset(k for k in keys if k in MODIFIERS)
        for key in keys:
            if key not in MODIFIERS:
                self.desktop.events.key(KeyEvent.press(key, mods))
