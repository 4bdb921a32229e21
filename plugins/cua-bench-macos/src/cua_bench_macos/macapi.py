"""Every call the macOS session makes into macOS, as one small typed protocol (``MacApi``).

The session's logic (actions to Quartz events, the accessibility tree to our nodes, windows, paths,
commands) is ours and testable anywhere; the calls themselves run only inside a macOS guest. So the
session talks to macOS through ``MacApi`` alone: ``quartz.QuartzApi`` is the real one (CoreGraphics
and the accessibility API through ctypes), and the tests give the session one that answers what
Apple's documentation says macOS answers.

The records carry macOS's own values: ``MouseEvent``/``KeyEvent``/``ScrollEvent`` are the arguments of
``CGEventCreateMouseEvent``, ``CGEventCreateKeyboardEvent`` (+ ``CGEventKeyboardSetUnicodeString``)
and ``CGEventCreateScrollWheelEvent2``, with CGEventTypes.h's numbers; ``WindowInfo`` is one
dictionary of ``CGWindowListCopyWindowInfo``; ``AXElement`` holds the accessibility attributes the
tree is made of, read by the names the API gives them (``AXRole``, ``AXPosition``...). Positions are
Quartz's global display coordinates: points, origin at the main display's top-left corner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "KCG_EVENT_FLAG_ALTERNATE",
    "KCG_EVENT_FLAG_COMMAND",
    "KCG_EVENT_FLAG_CONTROL",
    "KCG_EVENT_FLAG_SHIFT",
    "KCG_SCROLL_LINE",
    "AXElement",
    "KeyEvent",
    "MacApi",
    "MouseEvent",
    "QuartzEvent",
    "ScrollEvent",
    "WindowInfo",
    "element_from",
    "window_from",
]

# CGEventTypes.h: CGEventType.
KCG_LEFT_DOWN, KCG_LEFT_UP, KCG_RIGHT_DOWN, KCG_RIGHT_UP, KCG_MOUSE_MOVED = 1, 2, 3, 4, 5
KCG_LEFT_DRAGGED, KCG_RIGHT_DRAGGED = 6, 7
KCG_OTHER_DOWN, KCG_OTHER_UP, KCG_OTHER_DRAGGED = 25, 26, 27
# CGMouseButton.
KCG_BUTTON_LEFT, KCG_BUTTON_RIGHT, KCG_BUTTON_CENTER = 0, 1, 2
# CGEventFlags (the device-independent modifier bits).
KCG_EVENT_FLAG_SHIFT = 0x00020000
KCG_EVENT_FLAG_CONTROL = 0x00040000
KCG_EVENT_FLAG_ALTERNATE = 0x00080000
KCG_EVENT_FLAG_COMMAND = 0x00100000
# CGScrollEventUnit.
KCG_SCROLL_PIXEL, KCG_SCROLL_LINE = 0, 1


@dataclass(frozen=True)
class MouseEvent:
    """``CGEventCreateMouseEvent(NULL, type, (x, y), button)``, then ``kCGMouseEventClickState`` set to
    ``clicks`` (1 for a single click, 2 for the second press of a double click: how apps tell them apart)."""

    type: int
    x: float
    y: float
    button: int = KCG_BUTTON_LEFT
    clicks: int = 1


@dataclass(frozen=True)
class KeyEvent:
    """``CGEventCreateKeyboardEvent(NULL, keycode, down)`` with ``CGEventSetFlags(flags)``; with ``text``,
    ``CGEventKeyboardSetUnicodeString`` makes the event type those characters whatever the key is."""

    keycode: int
    down: bool
    flags: int = 0
    text: str = ""


@dataclass(frozen=True)
class ScrollEvent:
    """``CGEventCreateScrollWheelEvent2(NULL, units, 2, vertical, horizontal, 0)``: positive ``vertical``
    scrolls up (content moves down), positive ``horizontal`` scrolls left."""

    vertical: int
    horizontal: int = 0
    units: int = KCG_SCROLL_LINE


QuartzEvent = MouseEvent | KeyEvent | ScrollEvent


@dataclass(frozen=True)
class WindowInfo:
    """One on-screen window from ``CGWindowListCopyWindowInfo`` (front to back): ``kCGWindowNumber``,
    ``kCGWindowOwnerPID``, ``kCGWindowOwnerName``, ``kCGWindowName`` (empty without the Screen Recording
    permission), ``kCGWindowLayer`` (0 for apps' ordinary windows) and ``kCGWindowBounds`` in points."""

    number: int
    pid: int
    owner: str
    name: str = ""
    layer: int = 0
    bounds: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # x, y, width, height


def window_from(info: Mapping[str, Any]) -> WindowInfo:
    """A window from the dictionary's own key names (how the real API hands it over, and how recorded
    answers are stored)."""
    box = info.get("kCGWindowBounds") or {}
    return WindowInfo(
        number=int(info["kCGWindowNumber"]),
        pid=int(info["kCGWindowOwnerPID"]),
        owner=str(info.get("kCGWindowOwnerName") or ""),
        name=str(info.get("kCGWindowName") or ""),
        layer=int(info.get("kCGWindowLayer") or 0),
        bounds=(
            float(box.get("X", 0)),
            float(box.get("Y", 0)),
            float(box.get("Width", 0)),
            float(box.get("Height", 0)),
        ),
    )


@dataclass
class AXElement:
    """One accessibility element with the attributes the session reads.

    ``position``/``size`` are ``AXPosition``/``AXSize`` (global points); ``value`` is ``AXValue`` as the
    API types it (text for a text field, 0/1/2 for a check box, a number for a slider), None where the
    element has none; ``value_settable`` is ``AXUIElementIsAttributeSettable(AXValue)``; ``selected`` is
    None where the element has no ``AXSelected``.
    """

    role: str
    subrole: str = ""
    title: str = ""
    description: str = ""
    value: Any = None
    position: tuple[float, float] = (0.0, 0.0)
    size: tuple[float, float] = (0.0, 0.0)
    enabled: bool = True
    focused: bool = False
    selected: bool | None = None
    value_settable: bool | None = None
    identifier: str = ""
    children: list[AXElement] = field(default_factory=list)


def element_from(attributes: Mapping[str, Any]) -> AXElement:
    """An element from the accessibility API's attribute names (``AXRole``, ``AXPosition``...) and
    ``children``."""
    position = attributes.get("AXPosition") or (0, 0)
    size = attributes.get("AXSize") or (0, 0)
    return AXElement(
        role=str(attributes["AXRole"]),
        subrole=str(attributes.get("AXSubrole") or ""),
        title=str(attributes.get("AXTitle") or ""),
        description=str(attributes.get("AXDescription") or ""),
        value=attributes.get("AXValue"),
        position=(float(position[0]), float(position[1])),
        size=(float(size[0]), float(size[1])),
        enabled=bool(attributes.get("AXEnabled", True)),
        focused=bool(attributes.get("AXFocused", False)),
        selected=attributes.get("AXSelected"),
        value_settable=attributes.get("valueSettable"),
        identifier=str(attributes.get("AXIdentifier") or ""),
        children=[element_from(child) for child in attributes.get("children", ())],
    )


class MacApi(Protocol):
    """The macOS calls of one session."""

    def post(self, events: Sequence[QuartzEvent]) -> None:
        """Create each event and ``CGEventPost(kCGHIDEventTap, event)`` it, in order."""
        ...

    def screen_size(self) -> tuple[float, float]:
        """``CGDisplayBounds(CGMainDisplayID())``'s size: the main display in points."""
        ...

    def cursor_pos(self) -> tuple[float, float]:
        """``CGEventGetLocation(CGEventCreate(NULL))``: where the pointer is, in points."""
        ...

    def capture_png(self) -> bytes:
        """The main display as PNG (``screencapture -x``), in pixels (twice the points on a Retina display)."""
        ...

    def windows(self) -> list[WindowInfo]:
        """``CGWindowListCopyWindowInfo(OnScreenOnly | ExcludeDesktopElements)``: on-screen windows, front first."""
        ...

    def ax_windows(self, pid: int, depth: int | None) -> list[AXElement]:
        """The ``AXWindows`` of the app ``pid`` (``AXUIElementCreateApplication``), each with its
        ``AXChildren`` ``depth`` levels down (all: None)."""
        ...

    def frontmost_pid(self) -> int:
        """The pid of the app with the keyboard (the system-wide element's ``AXFocusedApplication``), 0 for none."""
        ...

    def activate(self, pid: int) -> None:
        """Bring the app to the front (its ``AXFrontmost`` set to true)."""
        ...

    def close_window(self, window: WindowInfo) -> bool:
        """Press the close button (``AXCloseButton``) of the app's AX window at ``window``'s bounds; False
        when no such window or button was found."""
        ...

    def run(self, argv: Sequence[str], timeout: float, cwd: str) -> tuple[int, bytes, bytes]:
        """A program in a session of its own; ``(exit code, stdout, stderr)``, 124 when it outlived
        ``timeout`` (it is killed with its process group, and what it wrote until then is returned)."""
        ...

    def env(self, name: str) -> str | None:
        """The server's environment variable ``name`` (``HOME``)."""
        ...

    def trusted(self) -> tuple[bool, bool]:
        """``AXIsProcessTrusted()`` and ``CGPreflightScreenCaptureAccess()``: whether this process may post
        events and read the AX tree, and capture the screen."""
        ...
