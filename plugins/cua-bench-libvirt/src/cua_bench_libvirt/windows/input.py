"""Unified actions to ``SendInput`` events: the presses a person would make, in one call per step.

Pointer positions are absolute: SendInput's ``MOUSEEVENTF_ABSOLUTE`` takes 0..65535 on each axis of
the primary screen, (0, 0) its top-left corner and (65535, 65535) its bottom-right. Windows turns such
a value back into a pixel by scaling with the screen's size and dropping the fraction; which of the
two usual scalings (by 65536 or by 65535) it uses is not documented, so a pixel is sent as its
centre (``absolute``), which lands on that pixel under either. Button presses carry no position:
they happen where the move before them put the pointer. Anything a desktop cannot do comes back as
a reason string, never an exception, as on the local desktop.
"""

from __future__ import annotations

import asyncio
import logging

from cua_bench_libvirt.windows.keys import chord_keys, text_events
from cua_bench_libvirt.windows.winapi import (
    MOUSEEVENTF_ABSOLUTE,
    MOUSEEVENTF_HWHEEL,
    MOUSEEVENTF_LEFTDOWN,
    MOUSEEVENTF_LEFTUP,
    MOUSEEVENTF_MIDDLEDOWN,
    MOUSEEVENTF_MIDDLEUP,
    MOUSEEVENTF_MOVE,
    MOUSEEVENTF_RIGHTDOWN,
    MOUSEEVENTF_RIGHTUP,
    MOUSEEVENTF_WHEEL,
    WHEEL_DELTA,
    Input,
    KeyInput,
    MouseInput,
    WinApi,
)
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

__all__ = ["BUTTONS", "NO_INPUT", "WindowsInput", "absolute"]

log = logging.getLogger(__name__)

BUTTONS = {
    "left": (MOUSEEVENTF_LEFTDOWN, MOUSEEVENTF_LEFTUP),
    "right": (MOUSEEVENTF_RIGHTDOWN, MOUSEEVENTF_RIGHTUP),
    "middle": (MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP),
}
WHEELS = {"up": (MOUSEEVENTF_WHEEL, 1), "down": (MOUSEEVENTF_WHEEL, -1),
          "left": (MOUSEEVENTF_HWHEEL, -1), "right": (MOUSEEVENTF_HWHEEL, 1)}  # fmt: skip
DRAG_STEPS = 8
NO_INPUT = (Wait, Screenshot, CursorPosition, Done, Fail)  # actions that leave the screen as it is
_KNOWN: frozenset[type] = frozenset(ACTIONS.values())


def absolute(pixel: int, size: int) -> int:
    """SendInput's 0..65535 for the centre of ``pixel`` on an axis of ``size`` pixels."""
    return (2 * pixel + 1) * 65536 // (2 * size)


class WindowsInput:
    """Applies actions through ``WinApi.send_input``, remembering held keys and buttons between actions."""

    def __init__(self, api: WinApi, width: int, height: int) -> None:
        self.api = api
        self.width, self.height = width, height
        self.buttons: set[str] = set()
        self.keys: dict[str, list[KeyInput]] = {}  # a held key -> the releases that let it go

    def _px(self, point: Point | None) -> tuple[int, int] | None:
        return None if point is None else to_pixels(point, self.width, self.height)

    def move(self, at: tuple[int, int] | None) -> list[Input]:
        if at is None:
            return []
        flags = MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_MOVE
        return [MouseInput(absolute(at[0], self.width), absolute(at[1], self.height), 0, flags)]

    def button(self, name: str, down: bool) -> MouseInput:
        return MouseInput(0, 0, 0, BUTTONS[name][0 if down else 1])

    def send(self, events: list[Input]) -> str | None:
        if not events:
            return None
        sent = self.api.send_input(events)
        if sent != len(events):  # UIPI: a window of a higher integrity level (a UAC prompt) has the input
            return f"Windows took {sent} of {len(events)} input events (is an elevated window in front?)"
        return None

    def release_all(self) -> None:
        """Let go of every held button and key (reset, or an action that failed half way)."""
        events: list[Input] = [self.button(name, False) for name in sorted(self.buttons)]
        for releases in self.keys.values():
            events += releases
        self.buttons.clear()
        self.keys.clear()
        self.send(events)

    async def apply(self, action: Action) -> str | None:
        kind = getattr(action, "kind", type(action).__name__)
        if type(action) not in _KNOWN:
            return f"{kind}: not an action the Windows desktop knows"
        try:
            return await self._apply(action)
        except Exception as exc:  # SendInput or a Windows call failed: report it to the agent
            log.exception("windows desktop: %s failed", kind)
            return f"{kind}: the desktop failed to apply it ({type(exc).__name__}: {exc})"

    def _click(self, at: tuple[int, int] | None, button: str, clicks: int) -> str | None:
        events = self.move(at)
        for _ in range(clicks):
            events += [self.button(button, True), self.button(button, False)]
        return self.send(events)

    def _drag(self, start: tuple[int, int] | None, end: tuple[int, int], button: str) -> str | None:
        begin = start if start is not None else self.api.cursor_pos()
        events = [*self.move(begin), self.button(button, True)]
        for step in range(1, DRAG_STEPS + 1):
            events += self.move((begin[0] + (end[0] - begin[0]) * step // DRAG_STEPS,
                                 begin[1] + (end[1] - begin[1]) * step // DRAG_STEPS))  # fmt: skip
        return self.send([*events, self.button(button, False)])

    async def _apply(self, action: Action) -> str | None:
        match action:
            case Click(coordinate=point, button=button, clicks=clicks):
                return self._click(self._px(point), button, clicks)
            case Tap(coordinate=point, clicks=clicks):
                return self._click(self._px(point), "left", clicks)
            case LongPress(coordinate=point):
                return self._click(self._px(point), "right", 1)  # as on the sim desktop: a context menu
            case MouseMove(coordinate=point):
                return self.send(self.move(self._px(point)))
            case MouseDown(button=button, coordinate=point):
                if button in self.buttons:
                    return f"mouse_down: the {button} button is already down; send mouse_up first"
                self.buttons.add(button)
                return self.send([*self.move(self._px(point)), self.button(button, True)])
            case MouseUp(button=button, coordinate=point):
                if button not in self.buttons:
                    return f"mouse_up: the {button} button is not down (press it with mouse_down first)"
                self.buttons.discard(button)
                return self.send([*self.move(self._px(point)), self.button(button, False)])
            case Drag(start=start, end=end, button=button):
                return self._drag(self._px(start), to_pixels(end, self.width, self.height), button)
            case Swipe(start=start, end=end):
                return self._drag(self._px(start), to_pixels(end, self.width, self.height), "left")
            case Scroll(direction=direction, amount=amount, coordinate=point):
                flags, sign = WHEELS[direction]
                notches = [MouseInput(0, 0, sign * WHEEL_DELTA, flags) for _ in range(amount)]
                return self.send([*self.move(self._px(point)), *notches])
            case TypeText(text=text, press_enter=press_enter):
                return self.send(list(text_events(text + ("\n" if press_enter else ""))))
            case KeyPress(keys=keys):
                downs, ups = chord_keys(keys, self.api.vk_scan)
                return self.send([*downs, *ups])
            case HoldKey(keys=keys, duration=duration):
                downs, ups = chord_keys(keys, self.api.vk_scan)
                error = self.send(list(downs))
                try:
                    await asyncio.sleep(duration)
                finally:
                    self.send(list(ups))
                return error
            case KeyDown(key=key):
                if key in self.keys:
                    return f"key_down: {key!r} is already held; send key_up first"
                downs, self.keys[key] = chord_keys((key,), self.api.vk_scan)
                return self.send(list(downs))
            case KeyUp(key=key):
                if key not in self.keys:
                    return f"key_up: {key!r} is not held (press it with key_down first)"
                return self.send(list(self.keys.pop(key)))
            case Wait(duration=duration):
                await asyncio.sleep(duration)
            case Pinch():
                return "pinch: the Windows desktop has no touch screen here; zoom with key (e.g. ctrl+plus) or scroll"
            case SystemButton(button=button):
                return f"system_button: the Windows desktop has no {button!r} phone button; use key (e.g. escape)"
            case OpenApp(app=app):
                return (
                    f"open_app: the Windows desktop has no app launcher by name ({app!r}); "
                    f"open it from the Start menu (the win key)"
                )
            case Screenshot() | CursorPosition() | Done() | Fail():
                return None  # the env server answers these; the desktop has nothing to do
        return None
