"""``QuartzApi``: the real ``MacApi``, CoreGraphics and the accessibility API through ctypes.

Importable anywhere (Linux hosts import the backend, which names this module): the frameworks are
loaded when a ``QuartzApi`` is made, which only happens inside a macOS guest. No PyObjC: the calls are
C functions of CoreFoundation (``corefoundation.py``), CoreGraphics and ApplicationServices (HIServices'
AX API), so ctypes reaches them directly.

Ownership follows Core Foundation's rule: what a ``Create``/``Copy`` call returns is released here.
Scroll events go through ``CGEventCreateScrollWheelEvent2`` (macOS 10.13), the non-variadic form:
ctypes cannot call variadic C functions correctly on Apple silicon, which passes variadic arguments
on the stack. Capture is ``screencapture -x``, the system's own tool (``CGDisplayCreateImage`` is
deprecated since macOS 14).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from typing import Any

from cua_bench_macos.ax import MAX_NODES
from cua_bench_macos.corefoundation import FRAMEWORKS, CGPoint, CGRect, CGSize, CoreFoundation, bind
from cua_bench_macos.macapi import AXElement, KeyEvent, MouseEvent, QuartzEvent, ScrollEvent, WindowInfo

__all__ = ["QuartzApi"]

HID_TAP = 0  # kCGHIDEventTap
CLICK_STATE = 1  # kCGMouseEventClickState
WINDOW_LIST = (1 << 0) | (1 << 4)  # kCGWindowListOptionOnScreenOnly | kCGWindowListExcludeDesktopElements
AX_POINT, AX_SIZE = 1, 2  # kAXValueCGPointType, kAXValueCGSizeType
ATTRIBUTES = ("AXRole", "AXSubrole", "AXTitle", "AXDescription", "AXValue", "AXEnabled", "AXFocused", "AXSelected",
              "AXIdentifier")  # fmt: skip
WINDOW_KEYS = ("kCGWindowNumber", "kCGWindowOwnerPID", "kCGWindowOwnerName", "kCGWindowName", "kCGWindowLayer")


class QuartzApi:
    """macOS's answers for a MacSession (construct it inside the macOS guest only)."""

    def __init__(self) -> None:
        vp, u32, i32, b = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int32, ctypes.c_bool
        self.core = core = CoreFoundation()
        cg = ctypes.CDLL(FRAMEWORKS.format("CoreGraphics"))
        ax = ctypes.CDLL(FRAMEWORKS.format("ApplicationServices"))
        self.release, self.dict_get = core.release, core.dict_get
        self.main_display = bind(cg, "CGMainDisplayID", u32)
        self.display_bounds = bind(cg, "CGDisplayBounds", CGRect, u32)
        self.event_create = bind(cg, "CGEventCreate", vp, vp)
        self.event_location = bind(cg, "CGEventGetLocation", CGPoint, vp)
        self.mouse_event = bind(cg, "CGEventCreateMouseEvent", vp, vp, u32, CGPoint, u32)
        self.set_field = bind(cg, "CGEventSetIntegerValueField", None, vp, u32, ctypes.c_int64)
        self.key_event = bind(cg, "CGEventCreateKeyboardEvent", vp, vp, ctypes.c_uint16, b)
        self.set_flags = bind(cg, "CGEventSetFlags", None, vp, ctypes.c_uint64)
        self.set_unicode = bind(cg, "CGEventKeyboardSetUnicodeString", None, vp, ctypes.c_ulong,
                                ctypes.POINTER(ctypes.c_uint16))  # fmt: skip
        self.scroll_event = bind(cg, "CGEventCreateScrollWheelEvent2", vp, vp, u32, u32, i32, i32, i32)
        self.event_post = bind(cg, "CGEventPost", None, u32, vp)
        self.window_list = bind(cg, "CGWindowListCopyWindowInfo", vp, u32, u32)
        self.rect_from_dict = bind(cg, "CGRectMakeWithDictionaryRepresentation", b, vp, ctypes.POINTER(CGRect))
        self.capture_allowed = bind(cg, "CGPreflightScreenCaptureAccess", b)
        self.ax_trusted = bind(ax, "AXIsProcessTrusted", b)
        self.ax_app = bind(ax, "AXUIElementCreateApplication", vp, i32)
        self.ax_system = bind(ax, "AXUIElementCreateSystemWide", vp)
        self.ax_copy = bind(ax, "AXUIElementCopyAttributeValue", i32, vp, vp, ctypes.POINTER(vp))
        self.ax_set = bind(ax, "AXUIElementSetAttributeValue", i32, vp, vp, vp)
        self.ax_settable = bind(ax, "AXUIElementIsAttributeSettable", i32, vp, vp, ctypes.POINTER(ctypes.c_ubyte))
        self.ax_action = bind(ax, "AXUIElementPerformAction", i32, vp, vp)
        self.ax_pid = bind(ax, "AXUIElementGetPid", i32, vp, ctypes.POINTER(i32))
        self.ax_value_get = bind(ax, "AXValueGetValue", b, vp, u32, vp)
        # The window list's keys are the framework's own CFString constants (read, not spelt again here).
        self.window_keys = {name: vp.in_dll(cg, name).value for name in (*WINDOW_KEYS, "kCGWindowBounds")}
        self._budget = 0  # elements still to read in the current ax_windows call

    # -- reading the AX API ----------------------------------------------------------------------

    def _attribute(self, element: int, name: str) -> int | None:
        """``AXUIElementCopyAttributeValue``: an owned reference (release it), None when absent."""
        out = ctypes.c_void_p()
        return (
            out.value if self.ax_copy(element, self.core.string(name), ctypes.byref(out)) == 0 and out.value else None
        )

    # -- input and screen ------------------------------------------------------------------------

    def post(self, events: Sequence[QuartzEvent]) -> None:
        for event in events:
            ref = self._event(event)
            if not ref:
                raise OSError(f"Quartz could not create the event {event}")
            try:
                self.event_post(HID_TAP, ref)
            finally:
                self.release(ref)

    def _event(self, event: QuartzEvent) -> int:
        if isinstance(event, MouseEvent):
            ref: int = self.mouse_event(None, event.type, CGPoint(event.x, event.y), event.button)
            if ref:
                self.set_field(ref, CLICK_STATE, event.clicks)
            return ref
        if isinstance(event, KeyEvent):
            ref = self.key_event(None, event.keycode, event.down)
            if ref:
                self.set_flags(ref, event.flags)
                if event.text:
                    data = event.text.encode("utf-16-le")
                    units = (ctypes.c_uint16 * (len(data) // 2)).from_buffer_copy(data)
                    self.set_unicode(ref, len(units), units)
            return ref
        assert isinstance(event, ScrollEvent)
        scroll: int = self.scroll_event(None, event.units, 2, event.vertical, event.horizontal, 0)
        return scroll

    def screen_size(self) -> tuple[float, float]:
        bounds = self.display_bounds(self.main_display())
        return (bounds.size.width, bounds.size.height)

    def cursor_pos(self) -> tuple[float, float]:
        ref = self.event_create(None)
        try:
            where = self.event_location(ref)
            return (where.x, where.y)
        finally:
            self.release(ref)

    def capture_png(self) -> bytes:
        with tempfile.TemporaryDirectory(prefix="cua-shot-") as folder:
            path = os.path.join(folder, "screen.png")
            done = subprocess.run(
                ["/usr/sbin/screencapture", "-x", "-t", "png", path], capture_output=True, check=False
            )
            if done.returncode != 0 or not os.path.exists(path):
                raise OSError(f"screencapture failed (code {done.returncode}): {done.stderr.decode(errors='replace')}")
            with open(path, "rb") as fh:
                return fh.read()

    def trusted(self) -> tuple[bool, bool]:
        return bool(self.ax_trusted()), bool(self.capture_allowed())

    # -- windows and the accessibility tree ------------------------------------------------------

    def windows(self) -> list[WindowInfo]:
        listed = self.window_list(WINDOW_LIST, 0)
        if not listed:
            return []
        try:
            found = []
            for info in self.core.items(listed):
                values = {key: self.core.py(self.dict_get(info, self.window_keys[key])) for key in WINDOW_KEYS}
                rect = CGRect()
                box = self.dict_get(info, self.window_keys["kCGWindowBounds"])
                if box and self.rect_from_dict(box, ctypes.byref(rect)):
                    bounds = (rect.origin.x, rect.origin.y, rect.size.width, rect.size.height)
                else:
                    bounds = (0.0, 0.0, 0.0, 0.0)
                found.append(WindowInfo(int(values["kCGWindowNumber"] or 0), int(values["kCGWindowOwnerPID"] or 0),
                                        str(values["kCGWindowOwnerName"] or ""), str(values["kCGWindowName"] or ""),
                                        int(values["kCGWindowLayer"] or 0), bounds))  # fmt: skip
            return found
        finally:
            self.release(listed)

    def _element(self, ref: int, depth: int | None) -> AXElement:
        self._budget -= 1
        values: dict[str, Any] = {}
        for name in ATTRIBUTES:
            owned = self._attribute(ref, name)
            if owned is not None:
                try:
                    values[name] = self.core.py(owned)
                finally:
                    self.release(owned)
        element = AXElement(
            role=str(values.get("AXRole") or ""), subrole=str(values.get("AXSubrole") or ""),
            title=str(values.get("AXTitle") or ""), description=str(values.get("AXDescription") or ""),
            value=values.get("AXValue") if isinstance(values.get("AXValue"), str | int | float) else None,
            position=self._geometry(ref, "AXPosition", AX_POINT), size=self._geometry(ref, "AXSize", AX_SIZE),
            enabled=values.get("AXEnabled", True) is not False, focused=values.get("AXFocused") is True,
            selected=values.get("AXSelected") if isinstance(values.get("AXSelected"), bool) else None,
            value_settable=self._settable(ref, "AXValue"), identifier=str(values.get("AXIdentifier") or ""),
        )  # fmt: skip
        if (depth is None or depth > 0) and self._budget > 0:
            children = self._attribute(ref, "AXChildren")
            if children is not None:
                try:
                    element.children = [self._element(child, None if depth is None else depth - 1)
                                        for child in self.core.items(children) if self._budget > 0]  # fmt: skip
                finally:
                    self.release(children)
        return element

    def _geometry(self, ref: int, name: str, kind: int) -> tuple[float, float]:
        owned = self._attribute(ref, name)
        if owned is None:
            return (0.0, 0.0)
        try:
            out: CGPoint | CGSize = CGPoint() if kind == AX_POINT else CGSize()
            if not self.ax_value_get(owned, kind, ctypes.byref(out)):
                return (0.0, 0.0)
            return (out.x, out.y) if isinstance(out, CGPoint) else (out.width, out.height)
        finally:
            self.release(owned)

    def _settable(self, ref: int, name: str) -> bool | None:
        flag = ctypes.c_ubyte()
        return bool(flag.value) if self.ax_settable(ref, self.core.string(name), ctypes.byref(flag)) == 0 else None

    def ax_windows(self, pid: int, depth: int | None) -> list[AXElement]:
        """Read at most ``MAX_NODES`` elements per app: each is a dozen calls into the app's process, and a
        web page's tree can hold tens of thousands."""
        self._budget = MAX_NODES
        app = self.ax_app(pid)
        try:
            windows = self._attribute(app, "AXWindows")
            if windows is None:
                return []
            try:
                return [self._element(ref, depth) for ref in self.core.items(windows)]
            finally:
                self.release(windows)
        finally:
            self.release(app)

    def frontmost_pid(self) -> int:
        system = self.ax_system()
        try:
            app = self._attribute(system, "AXFocusedApplication")
            if app is None:
                return 0
            try:
                pid = ctypes.c_int32()
                return pid.value if self.ax_pid(app, ctypes.byref(pid)) == 0 else 0
            finally:
                self.release(app)
        finally:
            self.release(system)

    def activate(self, pid: int) -> None:
        app = self.ax_app(pid)
        try:
            self.ax_set(app, self.core.string("AXFrontmost"), self.core.true)
        finally:
            self.release(app)

    def close_window(self, window: WindowInfo) -> bool:
        app = self.ax_app(window.pid)
        try:
            windows = self._attribute(app, "AXWindows")
            if windows is None:
                return False
            try:
                for ref in self.core.items(windows):
                    frame = (*self._geometry(ref, "AXPosition", AX_POINT), *self._geometry(ref, "AXSize", AX_SIZE))
                    if all(abs(a - b) <= 1.0 for a, b in zip(frame, window.bounds, strict=True)):
                        button = self._attribute(ref, "AXCloseButton")
                        if button is None:
                            return False
                        try:
                            return bool(self.ax_action(button, self.core.string("AXPress")) == 0)
                        finally:
                            self.release(button)
                return False
            finally:
                self.release(windows)
        finally:
            self.release(app)

    # -- processes -------------------------------------------------------------------------------

    def run(self, argv: Sequence[str], timeout: float, cwd: str) -> tuple[int, bytes, bytes]:
        proc = subprocess.Popen(list(argv), cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
        try:
            out, err = proc.communicate(timeout=timeout)
            return proc.returncode, out, err
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            return 124, out, err

    def env(self, name: str) -> str | None:
        return os.environ.get(name)
