"""The action records: one frozen dataclass per action of the unified action space.

Environments, datasets and model adapters all speak these records, so each one checks itself on
construction: a record that exists is valid, and an invalid one never reaches a backend. Each
class has a class-level ``kind``, the action's name in dicts and in the text form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, TypeAlias

from cua_core.actions.checks import (
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_optional_text,
    check_text,
    describe,
)
from cua_core.actions.coords import Point
from cua_core.actions.keys import normalize_key, normalize_keys
from cua_core.errors import ActionError

__all__ = [
    "ACTIONS",
    "MOUSE_BUTTONS",
    "SCROLL_DIRECTIONS",
    "SYSTEM_BUTTONS",
    "Action",
    "Click",
    "CursorPosition",
    "Done",
    "Drag",
    "Fail",
    "HoldKey",
    "KeyDown",
    "KeyPress",
    "KeyUp",
    "LongPress",
    "MouseButton",
    "MouseDown",
    "MouseMove",
    "MouseUp",
    "OpenApp",
    "Pinch",
    "Screenshot",
    "Scroll",
    "ScrollDirection",
    "Swipe",
    "SystemButton",
    "SystemButtonName",
    "Tap",
    "TypeText",
    "Wait",
]

MouseButton = Literal["left", "right", "middle"]
ScrollDirection = Literal["up", "down", "left", "right"]
SystemButtonName = Literal["home", "back", "menu", "recent", "enter", "power", "volume_up", "volume_down"]
MOUSE_BUTTONS: tuple[MouseButton, ...] = ("left", "right", "middle")
SCROLL_DIRECTIONS: tuple[ScrollDirection, ...] = ("up", "down", "left", "right")
SYSTEM_BUTTONS: tuple[SystemButtonName, ...] = (
    "home", "back", "menu", "recent", "enter", "power", "volume_up", "volume_down"
)  # fmt: skip

# Bounds that keep one action from stalling an environment or flooding it with input events.
MAX_CLICKS = 3
MAX_SCROLL_AMOUNT = 100
MAX_DURATION = 60.0
# Beyond 100x a pinch is a model's mistake, not a gesture a touchscreen can perform.
MAX_PINCH_SCALE = 100.0


def _set(record: object, field: str, value: object) -> None:
    # Records are frozen; normalising in __post_init__ is the one place they are written.
    object.__setattr__(record, field, value)


def _point(value: object, label: str) -> Point:
    if not isinstance(value, Point):
        raise ActionError(f"{label}: {describe(value)} is not a Point(x, y)")
    return value


def _optional_point(value: object, label: str) -> Point | None:
    return None if value is None else _point(value, label)


def _duration(value: object, label: str, *, allow_zero: bool = False) -> float | int:
    return check_number(value, label, 0, MAX_DURATION, low_open=not allow_zero)


# --- pointer -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Click:
    """Press and release a mouse button ``clicks`` times; no coordinate clicks where it is."""

    kind: ClassVar[str] = "click"
    coordinate: Point | None = None
    button: MouseButton = "left"
    clicks: int = 1

    def __post_init__(self) -> None:
        _set(self, "coordinate", _optional_point(self.coordinate, "click.coordinate"))
        _set(self, "button", check_choice(self.button, "click.button", MOUSE_BUTTONS))
        _set(self, "clicks", check_int(self.clicks, "click.clicks", 1, MAX_CLICKS))


@dataclass(frozen=True, slots=True)
class MouseMove:
    """Move the cursor without pressing anything (hover menus, tooltips)."""

    kind: ClassVar[str] = "mouse_move"
    coordinate: Point

    def __post_init__(self) -> None:
        _set(self, "coordinate", _point(self.coordinate, "mouse_move.coordinate"))


@dataclass(frozen=True, slots=True)
class MouseDown:
    """Press a button and keep it down; a later ``mouse_up`` ends the gesture."""

    kind: ClassVar[str] = "mouse_down"
    button: MouseButton = "left"
    coordinate: Point | None = None

    def __post_init__(self) -> None:
        _set(self, "button", check_choice(self.button, "mouse_down.button", MOUSE_BUTTONS))
        _set(self, "coordinate", _optional_point(self.coordinate, "mouse_down.coordinate"))


@dataclass(frozen=True, slots=True)
class MouseUp:
    """Release a button pressed by ``mouse_down``, optionally after moving to ``coordinate``."""

    kind: ClassVar[str] = "mouse_up"
    button: MouseButton = "left"
    coordinate: Point | None = None

    def __post_init__(self) -> None:
        _set(self, "button", check_choice(self.button, "mouse_up.button", MOUSE_BUTTONS))
        _set(self, "coordinate", _optional_point(self.coordinate, "mouse_up.coordinate"))


@dataclass(frozen=True, slots=True)
class Drag:
    """Press at ``start``, move to ``end``, release.

    ``start=None`` drags from wherever the cursor is now, which is what OSWorld's ``DRAG_TO`` and
    pyautogui's ``dragTo`` do; keeping that form lets their trajectories convert without guessing.
    """

    kind: ClassVar[str] = "drag"
    start: Point | None
    end: Point
    button: MouseButton = "left"

    def __post_init__(self) -> None:
        _set(self, "start", _optional_point(self.start, "drag.start"))
        _set(self, "end", _point(self.end, "drag.end"))
        _set(self, "button", check_choice(self.button, "drag.button", MOUSE_BUTTONS))


@dataclass(frozen=True, slots=True)
class Scroll:
    """Scroll ``amount`` wheel clicks, at ``coordinate`` or wherever the cursor is."""

    kind: ClassVar[str] = "scroll"
    direction: ScrollDirection
    amount: int = 1
    coordinate: Point | None = None

    def __post_init__(self) -> None:
        _set(self, "direction", check_choice(self.direction, "scroll.direction", SCROLL_DIRECTIONS))
        _set(self, "amount", check_int(self.amount, "scroll.amount", 1, MAX_SCROLL_AMOUNT))
        _set(self, "coordinate", _optional_point(self.coordinate, "scroll.coordinate"))


# --- keyboard ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TypeText:
    """Type ``text`` as keystrokes; ``press_enter`` submits it, as most agents' tools allow."""

    kind: ClassVar[str] = "type"
    text: str
    press_enter: bool = False

    def __post_init__(self) -> None:
        _set(self, "text", check_text(self.text, "type.text"))
        _set(self, "press_enter", check_bool(self.press_enter, "type.press_enter"))


@dataclass(frozen=True, slots=True)
class KeyPress:
    """Press ``keys`` together and release them, e.g. ``("ctrl", "c")``."""

    kind: ClassVar[str] = "key"
    keys: tuple[str, ...]

    def __post_init__(self) -> None:
        _set(self, "keys", normalize_keys(self.keys, "key.keys"))


@dataclass(frozen=True, slots=True)
class KeyDown:
    """Press one key and keep it down until ``key_up`` (shift-click, held modifiers)."""

    kind: ClassVar[str] = "key_down"
    key: str

    def __post_init__(self) -> None:
        _set(self, "key", normalize_key(self.key, "key_down.key"))


@dataclass(frozen=True, slots=True)
class KeyUp:
    """Release a key pressed by ``key_down``."""

    kind: ClassVar[str] = "key_up"
    key: str

    def __post_init__(self) -> None:
        _set(self, "key", normalize_key(self.key, "key_up.key"))


@dataclass(frozen=True, slots=True)
class HoldKey:
    """Hold ``keys`` down for ``duration`` seconds, then release (games, auto-repeat)."""

    kind: ClassVar[str] = "hold_key"
    keys: tuple[str, ...]
    duration: float

    def __post_init__(self) -> None:
        _set(self, "keys", normalize_keys(self.keys, "hold_key.keys"))
        _set(self, "duration", _duration(self.duration, "hold_key.duration"))


# --- control -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Wait:
    """Do nothing for ``duration`` seconds while the screen settles."""

    kind: ClassVar[str] = "wait"
    duration: float = 1.0

    def __post_init__(self) -> None:
        _set(self, "duration", _duration(self.duration, "wait.duration", allow_zero=True))


@dataclass(frozen=True, slots=True)
class Screenshot:
    """Ask for a fresh observation without acting."""

    kind: ClassVar[str] = "screenshot"


@dataclass(frozen=True, slots=True)
class CursorPosition:
    """Ask where the cursor is; the answer comes back in the observation."""

    kind: ClassVar[str] = "cursor_position"


@dataclass(frozen=True, slots=True)
class Done:
    """End the episode as finished; ``answer`` carries the reply for question-answering tasks."""

    kind: ClassVar[str] = "done"
    answer: str | None = None

    def __post_init__(self) -> None:
        _set(self, "answer", check_optional_text(self.answer, "done.answer"))


@dataclass(frozen=True, slots=True)
class Fail:
    """End the episode as impossible (OSWorld's infeasible tasks reward exactly this)."""

    kind: ClassVar[str] = "fail"
    reason: str | None = None

    def __post_init__(self) -> None:
        _set(self, "reason", check_optional_text(self.reason, "fail.reason"))


# --- mobile --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tap:
    """Touch and release at ``coordinate``, ``clicks`` times (2 = double tap, as CUA-Lite's ``tap``)."""

    kind: ClassVar[str] = "tap"
    coordinate: Point
    clicks: int = 1

    def __post_init__(self) -> None:
        _set(self, "coordinate", _point(self.coordinate, "tap.coordinate"))
        _set(self, "clicks", check_int(self.clicks, "tap.clicks", 1, 2))


@dataclass(frozen=True, slots=True)
class LongPress:
    """Touch and hold for ``duration`` seconds (context menus, drag handles)."""

    kind: ClassVar[str] = "long_press"
    coordinate: Point
    duration: float = 1.0

    def __post_init__(self) -> None:
        _set(self, "coordinate", _point(self.coordinate, "long_press.coordinate"))
        _set(self, "duration", _duration(self.duration, "long_press.duration"))


@dataclass(frozen=True, slots=True)
class Swipe:
    """Slide one finger from ``start`` to ``end`` over ``duration`` seconds."""

    kind: ClassVar[str] = "swipe"
    start: Point
    end: Point
    duration: float = 0.5

    def __post_init__(self) -> None:
        _set(self, "start", _point(self.start, "swipe.start"))
        _set(self, "end", _point(self.end, "swipe.end"))
        _set(self, "duration", _duration(self.duration, "swipe.duration"))


@dataclass(frozen=True, slots=True)
class Pinch:
    """Two-finger zoom around ``center``: ``scale`` below 1 pinches in, above 1 spreads out."""

    kind: ClassVar[str] = "pinch"
    center: Point
    scale: float

    def __post_init__(self) -> None:
        _set(self, "center", _point(self.center, "pinch.center"))
        _set(
            self,
            "scale",
            check_number(self.scale, "pinch.scale", 0, MAX_PINCH_SCALE, low_open=True),
        )


@dataclass(frozen=True, slots=True)
class SystemButton:
    """Press a hardware or navigation button of a phone."""

    kind: ClassVar[str] = "system_button"
    button: SystemButtonName

    def __post_init__(self) -> None:
        _set(self, "button", check_choice(self.button, "system_button.button", SYSTEM_BUTTONS))


@dataclass(frozen=True, slots=True)
class OpenApp:
    """Launch an app by name, or bring it to the front: a phone's ``open_app`` (AndroidControl,
    UI-TARS, Qwen's ``open``). ``app`` is what the agent names it by, a launcher label ("Settings") or,
    on Android, a package ("com.android.settings"); each backend says which it takes."""

    kind: ClassVar[str] = "open_app"
    app: str

    def __post_init__(self) -> None:
        app = check_text(self.app, "open_app.app").strip()
        if not app:
            raise ActionError("open_app.app: name the app to open (its label, or on Android its package)")
        _set(self, "app", app)


Action: TypeAlias = (
    Click | MouseMove | MouseDown | MouseUp | Drag | Scroll
    | TypeText | KeyPress | KeyDown | KeyUp | HoldKey
    | Wait | Screenshot | CursorPosition | Done | Fail
    | Tap | LongPress | Swipe | Pinch | SystemButton | OpenApp
)  # fmt: skip
"""Any action of the unified action space."""

_ALL: tuple[type[Action], ...] = (
    Click, MouseMove, MouseDown, MouseUp, Drag, Scroll,
    TypeText, KeyPress, KeyDown, KeyUp, HoldKey,
    Wait, Screenshot, CursorPosition, Done, Fail,
    Tap, LongPress, Swipe, Pinch, SystemButton, OpenApp,
)  # fmt: skip

ACTIONS: dict[str, type[Action]] = {cls.kind: cls for cls in _ALL}
"""Every action class by its ``kind``, in a stable order (desktop, control, then mobile)."""
