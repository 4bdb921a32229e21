"""The environment's windows through EWMH: what openbox manages, in stacking order, with titles and bounds.

Reading ``_NET_CLIENT_LIST_STACKING`` and a few properties is a handful of round trips, cheap
enough to answer ``windows()`` and the one-node-per-window accessibility tree on every step.
Windows can vanish between two requests (an app closing); those are skipped, never an error.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from typing import Any

__all__ = ["Windows", "normalised", "parse_id"]

_ATOMS = (
    "_NET_CLIENT_LIST_STACKING", "_NET_ACTIVE_WINDOW", "_NET_WM_NAME", "UTF8_STRING", "_NET_WM_PID",
    "_NET_FRAME_EXTENTS", "_NET_CLOSE_WINDOW",
)  # fmt: skip


def normalised(box: tuple[int, int, int, int], width: int, height: int) -> list[float]:
    """``[left, top, right, bottom]`` in pixels to action coordinates ([0, 1000])."""
    left, top, right, bottom = box
    return [
        round(left * 1000 / width, 3),
        round(top * 1000 / height, 3),
        round(right * 1000 / width, 3),
        round(bottom * 1000 / height, 3),
    ]


class Windows:
    """EWMH queries and requests on one display connection (not thread safe: one caller at a time)."""

    def __init__(self, conn: Any, width: int, height: int) -> None:
        from Xlib import X, error
        from Xlib.protocol import event

        self.conn = conn
        self.root = conn.screen().root
        self.width, self.height = width, height
        self.atom = {name: conn.intern_atom(name) for name in _ATOMS}
        self._X, self._event = X, event
        self._errors = (error.BadWindow, error.BadDrawable, error.BadMatch)

    def _window(self, wid: int) -> Any:
        return self.conn.create_resource_object("window", wid)

    def _cardinals(self, window: Any, name: str) -> list[int]:
        prop = window.get_full_property(self.atom[name], self._X.AnyPropertyType)
        return [int(v) for v in prop.value] if prop is not None else []

    def ids(self) -> list[int]:
        """Managed windows, front to back."""
        return list(reversed(self._cardinals(self.root, "_NET_CLIENT_LIST_STACKING")))

    def active(self) -> int | None:
        found = self._cardinals(self.root, "_NET_ACTIVE_WINDOW")
        return found[0] if found and found[0] else None

    async def new_window_of(self, before: set[int], proc: subprocess.Popen[bytes], deadline: float) -> int | None:
        """The first window ``proc`` mapped that is not in ``before``; None once ``proc`` died or the
        monotonic ``deadline`` passed (the caller names what did not show)."""
        while True:
            ours = [wid for wid in self.ids() if wid not in before and self.pid(wid) == proc.pid]
            if ours:
                return ours[0]
            if proc.poll() is not None or time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.02)

    def pid(self, wid: int) -> int | None:
        try:
            found = self._cardinals(self._window(wid), "_NET_WM_PID")
        except self._errors:
            return None
        return found[0] if found else None

    def title(self, window: Any) -> str:
        prop = window.get_full_property(self.atom["_NET_WM_NAME"], self.atom["UTF8_STRING"])
        if prop is not None:
            value = prop.value
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        name = window.get_wm_name()
        return name.decode("latin-1") if isinstance(name, bytes) else (name or "")

    def origin(self, wid: int) -> tuple[int, int] | None:
        """The client area's top left in root pixels (inside the frame); None if the window is gone."""
        try:
            origin = self.root.translate_coords(self._window(wid), 0, 0)
        except self._errors:
            return None
        return origin.x, origin.y

    def box(self, window: Any) -> tuple[int, int, int, int]:
        """The window's frame (decorations included) in root pixels, clipped to the screen."""
        origin = self.root.translate_coords(window, 0, 0)  # the window's (0, 0) on the root
        geometry = window.get_geometry()
        left_ext, right_ext, top_ext, bottom_ext = (self._cardinals(window, "_NET_FRAME_EXTENTS") + [0] * 4)[:4]
        x, y = origin.x, origin.y
        left, top = max(0, x - left_ext), max(0, y - top_ext)
        right = min(self.width, x + geometry.width + right_ext)
        bottom = min(self.height, y + geometry.height + bottom_ext)
        return left, top, max(left, right), max(top, bottom)

    def describe(self, wid: int, focused: int | None) -> dict[str, Any] | None:
        window = self._window(wid)
        try:
            wm_class = window.get_wm_class()
            return {
                "id": f"0x{wid:x}",
                "title": self.title(window),
                "app": wm_class[0] if wm_class else "",
                "bounds": normalised(self.box(window), self.width, self.height),
                "focused": wid == focused,
            }
        except self._errors:
            return None

    def snapshot(self) -> list[dict[str, Any]]:
        """``{"id", "title", "app", "bounds", "focused"}`` per window, front to back."""
        focused = self.active()
        described = (self.describe(wid, focused) for wid in self.ids())
        return [info for info in described if info is not None]

    def _message(self, wid: int, name: str, data: list[int]) -> None:
        X = self._X
        message = self._event.ClientMessage(
            window=self._window(wid), client_type=self.atom[name], data=(32, [*data, 0, 0, 0, 0, 0][:5])
        )
        self.root.send_event(message, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
        self.conn.flush()

    def activate(self, wid: int) -> None:
        """Raise and focus, as a pager would (source indication 2)."""
        self._message(wid, "_NET_ACTIVE_WINDOW", [2, self._X.CurrentTime, 0])

    def close(self, wid: int) -> None:
        """Ask the window to close (the app may ask to save first)."""
        self._message(wid, "_NET_CLOSE_WINDOW", [self._X.CurrentTime, 2])


def parse_id(window_id: str | int) -> int:
    """A window id as ``windows()`` gives it ("0x1c00003") or as an integer."""
    return window_id if isinstance(window_id, int) else int(window_id, 0)
