"""Unified actions to Quartz events: the presses a person would make, posted in one call per step.

Action coordinates become pixels of the session's screen (what screenshots show), then Quartz's points:
on a Retina display a point is two pixels, so a pixel's centre is sent, which lands on that pixel at
any scale. Quartz has no "move while pressed": a motion with a button down is that button's
*dragged* event, which is what apps track a drag by, and each press carries its click count
(``kCGMouseEventClickState``), which is how apps tell a double click from two clicks. Anything the
desktop cannot do comes back as a reason string, never an exception, as on the other desktops.
"""

from __future__ import annotations

import asyncio
import logging

from cua_bench_macos.keys import MODIFIER_FLAGS, chord_events, text_events
from cua_bench_macos.macapi import (
    KCG_BUTTON_CENTER,
    KCG_BUTTON_LEFT,
    KCG_BUTTON_RIGHT,
    KCG_LEFT_DOWN,
    KCG_LEFT_DRAGGED,
    KCG_LEFT_UP,
    KCG_MOUSE_MOVED,
    KCG_OTHER_DOWN,
    KCG_OTHER_DRAGGED,
    KCG_OTHER_UP,
    KCG_RIGHT_DOWN,
    KCG_RIGHT_DRAGGED,
    KCG_RIGHT_UP,
    KeyEvent,
    MacApi,
    MouseEvent,
    QuartzEvent,
    ScrollEvent,
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

__all__ = ["BUTTONS", "NO_INPUT", "MacInput"]

log = logging.getLogger(__name__)

# button -> (CGMouseButton, down type, up type, dragged type)
BUTTONS = {
    "left": (KCG_BUTTON_LEFT, KCG_LEFT_DOWN, KCG_LEFT_UP, KCG_LEFT_DRAGGED),
    "right": (KCG_BUTTON_RIGHT, KCG_RIGHT_DOWN, KCG_RIGHT_UP, KCG_RIGHT_DRAGGED),
    "middle": (KCG_BUTTON_CENTER, KCG_OTHER_DOWN, KCG_OTHER_UP, KCG_OTHER_DRAGGED),
}
# direction -> (vertical, horizontal) sign of one wheel line: positive vertical scrolls up (pyautogui's
# macOS backend and Quartz's own convention); positive horizontal scrolls left (not verified on a Mac).
WHEELS = {"up": (1, 0), "down": (-1, 0), "left": (0, 1), "right": (0, -1)}
DRAG_STEPS = 8
NO_INPUT = (Wait, Screenshot, CursorPosition, Done, Fail)  # actions that leave the screen as it is
_KNOWN: frozenset[type] = frozenset(ACTIONS.values())


class MacInput:
    """Applies actions through ``MacApi.post``, remembering held keys and buttons between actions."""

    def __init__(self, api: MacApi, width: int, height: int) -> None:
        self.api = api
        self.width, self.height = width, height
        points = api.screen_size()
        self.scale = (points[0] / width, points[1] / height)  # points per pixel on each axis
        self.buttons: list[str] = []  # held, in the order pressed
        self.keys: dict[str, list[KeyEvent]] = {}  # a held key -> the releases that let it go
        self.at: tuple[float, float] | None = None  # where the last event put the pointer, in points

    def point(self, pixel: tuple[int, int]) -> tuple[float, float]:
        """The centre of a screen pixel, in Quartz's points."""
        return ((pixel[0] + 0.5) * self.scale[0], (pixel[1] + 0.5) * self.scale[1])

    def flags(self) -> int:
        held = 0
        for name in self.keys:
            held |= MODIFIER_FLAGS.get(name, 0)
        return held

    def _px(self, point: Point | None) -> tuple[int, int] | None:
        return None if point is None else to_pixels(point, self.width, self.height)

    def _where(self) -> tuple[float, float]:
        return self.at if self.at is not None else self.api.cursor_pos()

    def move(self, pixel: tuple[int, int] | None) -> list[QuartzEvent]:
        """A motion to ``pixel`` (nothing for None): a drag of the first held button, else a plain move."""
        if pixel is None:
            return []
        self.at = self.point(pixel)
        if self.buttons:
            button, _, _, dragged = BUTTONS[self.buttons[0]]
            return [MouseEvent(dragged, *self.at, button)]
        return [MouseEvent(KCG_MOUSE_MOVED, *self.at)]

    def press(self, name: str, down: bool, clicks: int = 1) -> MouseEvent:
        button, down_type, up_type, _ = BUTTONS[name]
        x, y = self._where()
        return MouseEvent(down_type if down else up_type, x, y, button, clicks)

    def send(self, events: list[QuartzEvent]) -> str | None:
        if events:
            self.api.post(events)
        return None

    def release_all(self) -> None:
        """Let go of every held button and key (reset, or an action that failed half way)."""
        events: list[QuartzEvent] = [self.press(name, False) for name in reversed(self.buttons)]
        for releases in reversed(self.keys.values()):
            events += releases
        self.buttons.clear()
        self.keys.clear()
        self.send(events)

    async def apply(self, action: Action) -> str | None:
        kind = getattr(action, "kind", type(action).__name__)
        if type(action) not in _KNOWN:
            return f"{kind}: not an action the macOS desktop knows"
        try:
            return await self._apply(action)
        except Exception as exc:  # a Quartz call failed: report it to the agent
            log.exception("macOS desktop: %s failed", kind)
            return f"{kind}: the desktop failed to apply it ({type(exc).__name__}: {exc})"

    def _click(self, pixel: tuple[int, int] | None, button: str, clicks: int) -> str | None:
        events = self.move(pixel)
        for count in range(1, clicks + 1):
            events += [self.press(button, True, count), self.press(button, False, count)]
        return self.send(events)

    def _drag(self, start: tuple[int, int] | None, end: tuple[int, int], button: str) -> str | None:
        events = self.move(start)
        events.append(self.press(button, True))
        first, last = self._where(), self.point(end)
        for step in range(1, DRAG_STEPS + 1):
            self.at = (first[0] + (last[0] - first[0]) * step / DRAG_STEPS,
                       first[1] + (last[1] - first[1]) * step / DRAG_STEPS)  # fmt: skip
            events.append(MouseEvent(BUTTONS[button][3], *self.at, BUTTONS[button][0]))
        return self.send([*events, self.press(button, False)])

    def _keys(self, names: tuple[str, ...]) -> tuple[list[KeyEvent], list[KeyEvent]]:
        return chord_events(names, self.flags())

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
                events = [*self.move(self._px(point)), self.press(button, True)]
                self.buttons.append(button)
                return self.send(events)
            case MouseUp(button=button, coordinate=point):
                if button not in self.buttons:
                    return f"mouse_up: the {button} button is not down (press it with mouse_down first)"
                events = self.move(self._px(point))
                self.buttons.remove(button)
                return self.send([*events, self.press(button, False)])
            case Drag(start=start, end=end, button=button):
                return self._drag(self._px(start), to_pixels(end, self.width, self.height), button)
            case Swipe(start=start, end=end):
                return self._drag(self._px(start), to_pixels(end, self.width, self.height), "left")
            case Scroll(direction=direction, amount=amount, coordinate=point):
                vertical, horizontal = WHEELS[direction]
                lines: list[QuartzEvent] = [ScrollEvent(vertical, horizontal) for _ in range(amount)]
                return self.send([*self.move(self._px(point)), *lines])
            case TypeText(text=text, press_enter=press_enter):
                return self.send(list(text_events(text + ("\n" if press_enter else ""))))
            case KeyPress(keys=keys):
                downs, ups = self._keys(keys)
                return self.send([*downs, *ups])
            case HoldKey(keys=keys, duration=duration):
                downs, ups = self._keys(keys)
                error = self.send(list(downs))
                try:
                    await asyncio.sleep(duration)
                finally:
                    self.send(list(ups))
                return error
            case KeyDown(key=key):
                if key in self.keys:
                    return f"key_down: {key!r} is already held; send key_up first"
                downs, ups = self._keys((key,))
                self.keys[key] = ups
                return self.send(list(downs))
            case KeyUp(key=key):
                if key not in self.keys:
                    return f"key_up: {key!r} is not held (press it with key_down first)"
                return self.send(list(self.keys.pop(key)))
            case Wait(duration=duration):
                await asyncio.sleep(duration)
            case Pinch():
                return "pinch: the macOS desktop has no touch screen here; zoom with key (e.g. cmd+plus) or scroll"
            case SystemButton(button=button):
                return f"system_button: the macOS desktop has no {button!r} phone button; use key (e.g. escape)"
            case OpenApp(app=app):
                return (
                    f"open_app: the macOS desktop has no app launcher by name ({app!r}); "
                    f"open it from the Dock or Spotlight (cmd+space)"
                )
            case Screenshot() | CursorPosition() | Done() | Fail():
                return None  # the env server answers these; the desktop has nothing to do
        return None
