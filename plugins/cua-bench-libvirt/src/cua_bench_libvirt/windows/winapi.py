"""Every call the Windows session makes into Windows, as one small typed protocol (``WinApi``).

The session's logic (actions to ``SendInput`` events, the UI Automation tree to our nodes, paths,
commands) is ours and testable anywhere; the calls themselves run only on Windows. So the session
talks to Windows through ``WinApi`` alone: ``ctypes_api.CtypesApi`` is the real one (user32 through
ctypes, UI Automation through comtypes), and the tests give the session one that answers what
Microsoft's documentation says Windows answers.

The records here carry Windows' own values: ``MouseInput``/``KeyInput`` are the fields of the INPUT
structure ``SendInput`` takes (MOUSEINPUT, KEYBDINPUT), and ``UiaElement`` holds the UI Automation
properties the tree is made of, read by the property names UIA gives them (``ControlType``,
``BoundingRectangle`` as a RECT in physical screen pixels, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "INPUT_KEYBOARD",
    "INPUT_MOUSE",
    "KEYEVENTF_EXTENDEDKEY",
    "KEYEVENTF_KEYUP",
    "KEYEVENTF_UNICODE",
    "MOUSEEVENTF_ABSOLUTE",
    "MOUSEEVENTF_HWHEEL",
    "MOUSEEVENTF_MOVE",
    "MOUSEEVENTF_WHEEL",
    "WHEEL_DELTA",
    "Input",
    "KeyInput",
    "MouseInput",
    "UiaElement",
    "WinApi",
    "element_from",
]

# winuser.h: INPUT.type, MOUSEINPUT.dwFlags, KEYBDINPUT.dwFlags, and one notch of a wheel.
INPUT_MOUSE = 0
INPUT_KEYBOARD = 1
MOUSEEVENTF_MOVE = 0x0001
MOUSEEVENTF_LEFTDOWN = 0x0002
MOUSEEVENTF_LEFTUP = 0x0004
MOUSEEVENTF_RIGHTDOWN = 0x0008
MOUSEEVENTF_RIGHTUP = 0x0010
MOUSEEVENTF_MIDDLEDOWN = 0x0020
MOUSEEVENTF_MIDDLEUP = 0x0040
MOUSEEVENTF_WHEEL = 0x0800
MOUSEEVENTF_HWHEEL = 0x1000
MOUSEEVENTF_ABSOLUTE = 0x8000
KEYEVENTF_EXTENDEDKEY = 0x0001
KEYEVENTF_KEYUP = 0x0002
KEYEVENTF_UNICODE = 0x0004
WHEEL_DELTA = 120


@dataclass(frozen=True)
class MouseInput:
    """MOUSEINPUT: ``dx``/``dy`` are 0..65535 with ``MOUSEEVENTF_ABSOLUTE``, else a relative motion;
    ``mouse_data`` is a wheel's signed movement (a multiple of ``WHEEL_DELTA``)."""

    dx: int
    dy: int
    mouse_data: int
    flags: int


@dataclass(frozen=True)
class KeyInput:
    """KEYBDINPUT: a virtual-key code (``vk``), or with ``KEYEVENTF_UNICODE`` a UTF-16 unit in ``scan``."""

    vk: int
    scan: int
    flags: int


Input = MouseInput | KeyInput


@dataclass
class UiaElement:
    """One UI Automation element with the properties the session reads (the CurrentX/CachedX names).

    ``rect`` is BoundingRectangle as the COM API gives it, a RECT ``(left, top, right, bottom)`` in
    physical screen pixels (empty for an element off screen). ``toggle_state`` (ToggleState_Off 0,
    On 1, Indeterminate 2) and ``value``/``value_read_only`` are None where the element has no
    TogglePattern or ValuePattern. ``process_name`` is filled for top-level windows only.
    """

    control_type: int
    name: str = ""
    rect: tuple[int, int, int, int] = (0, 0, 0, 0)
    enabled: bool = True
    has_keyboard_focus: bool = False
    keyboard_focusable: bool = False
    offscreen: bool = False
    toggle_state: int | None = None
    value: str | None = None
    value_read_only: bool | None = None
    process_id: int = 0
    native_window_handle: int = 0
    class_name: str = ""
    automation_id: str = ""
    process_name: str = ""
    children: list[UiaElement] = field(default_factory=list)


def element_from(properties: Mapping[str, Any]) -> UiaElement:
    """An element from UIA's property names (``ControlType``, ``BoundingRectangle``, ``IsEnabled``...)
    and ``children``: how the real API hands over what it read, and how recorded answers are stored."""
    rect = properties.get("BoundingRectangle") or (0, 0, 0, 0)
    return UiaElement(
        control_type=int(properties["ControlType"]),
        name=str(properties.get("Name") or ""),
        rect=(int(rect[0]), int(rect[1]), int(rect[2]), int(rect[3])),
        enabled=bool(properties.get("IsEnabled", True)),
        has_keyboard_focus=bool(properties.get("HasKeyboardFocus", False)),
        keyboard_focusable=bool(properties.get("IsKeyboardFocusable", False)),
        offscreen=bool(properties.get("IsOffscreen", False)),
        toggle_state=properties.get("ToggleState"),
        value=properties.get("Value"),
        value_read_only=properties.get("ValueIsReadOnly"),
        process_id=int(properties.get("ProcessId") or 0),
        native_window_handle=int(properties.get("NativeWindowHandle") or 0),
        class_name=str(properties.get("ClassName") or ""),
        automation_id=str(properties.get("AutomationId") or ""),
        process_name=str(properties.get("ProcessName") or ""),
        children=[element_from(child) for child in properties.get("children", ())],
    )


class WinApi(Protocol):
    """The Windows calls of one session. Coordinates are physical screen pixels (the process is DPI aware)."""

    def send_input(self, events: Sequence[Input]) -> int:
        """``SendInput`` of the events in one call; returns how many Windows inserted."""
        ...

    def screen_size(self) -> tuple[int, int]:
        """``GetSystemMetrics(SM_CXSCREEN)``, ``(SM_CYSCREEN)``: the primary screen in pixels."""
        ...

    def set_screen_size(self, width: int, height: int) -> bool:
        """``ChangeDisplaySettingsW`` of the primary screen; False when the display refuses that mode."""
        ...

    def cursor_pos(self) -> tuple[int, int]:
        """``GetCursorPos``."""
        ...

    def vk_scan(self, char: str) -> int:
        """``VkKeyScanW(char)``: the virtual key (low byte) and shift state (high byte), -1 when none."""
        ...

    def grab(self, left: int, top: int, width: int, height: int) -> bytes:
        """The screen's pixels in that rectangle, BGRA, row by row (mss on GDI)."""
        ...

    def uia_root(self, depth: int | None = None) -> UiaElement:
        """The desktop's UIA element (control view) with its descendants ``depth`` levels down (all: None)."""
        ...

    def foreground_window(self) -> int:
        """``GetForegroundWindow``: the handle of the window that has the user's input (0 for none)."""
        ...

    def activate(self, hwnd: int) -> None:
        """Bring a top-level window to the front and give it the input (``SetForegroundWindow``)."""
        ...

    def close_window(self, hwnd: int) -> None:
        """Ask a window to close (``PostMessageW(hwnd, WM_CLOSE)``), as its close button does."""
        ...

    def run(self, argv: Sequence[str], timeout: float, cwd: str) -> tuple[int, bytes, bytes]:
        """A program without a console window; ``(exit code, stdout, stderr)``, 124 when it outlived
        ``timeout`` (it is killed with its children, and what it wrote until then is returned)."""
        ...

    def env(self, name: str) -> str | None:
        """The server's environment variable ``name`` (``USERPROFILE``, ``TEMP``)."""
        ...

    def realpath(self, path: str) -> str:
        """``os.path.realpath`` on Windows: junctions and symbolic links resolved."""
        ...

    def read_bytes(self, path: str) -> bytes: ...

    def write_bytes(self, path: str, data: bytes) -> None:
        """Create or replace the file, making its folders."""
        ...

    def is_file(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def list_dir(self, path: str) -> list[str]: ...
