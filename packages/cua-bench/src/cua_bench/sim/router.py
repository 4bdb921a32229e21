"""Pointer and keyboard events to the right place: the open popup, the title bar, the widget under
the pointer (which keeps the pointer while its button is down), or the focused window.

Modal dialogs are enforced here: a press on any other window only brings the dialog forward.
Every press and key is recorded here too (``desktop.provenance``), with what it hit or went to, as
it is delivered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cua_bench.sim.events import MODIFIERS, KeyEvent, MouseEvent, ScrollEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.provenance import ClickRecord, KeyRecord, WidgetRef
from cua_bench.sim.widget import Widget
from cua_bench.sim.windows import TASKBAR_HEIGHT, TITLE_HEIGHT, Window

if TYPE_CHECKING:
    from cua_bench.sim.desktop import SimDesktop

__all__ = ["EventRouter"]


@dataclass
class _Capture:
    """What a pressed left button holds: a widget, a window being moved, or a close button."""

    kind: str
    window: Window
    widget: Widget | None = None
    offset: tuple[int, int] = (0, 0)


class EventRouter:
    """Delivers pixel-level events for one desktop; ``capture`` is the press in progress."""

    def __init__(self, desktop: SimDesktop) -> None:
        self.desktop = desktop
        self.capture: _Capture | None = None

    def forget(self, window: Window) -> bool:
        """Drop a press held by a closing window; True when there was one."""
        if self.capture is not None and self.capture.window is window:
            self.capture = None
            return True
        return False

    def move_cursor(self, sx: int, sy: int) -> None:
        if (sx, sy) != self.desktop.cursor:
            self.desktop.cursor = (sx, sy)
            if self.desktop.show_cursor:
                self.desktop.invalidate()

    def _mods(self) -> frozenset[str]:
        return frozenset(self.desktop.held & MODIFIERS)

    def _event(self, window: Window, sx: int, sy: int, button: str = "left", count: int = 1) -> MouseEvent:
        return MouseEvent(sx - window.rect.x, sy - window.rect.y, sx, sy, button, count, self._mods())

    def mouse_down(self, sx: int, sy: int, button: str = "left", count: int = 1, *, touch: str | None = None) -> None:
        """A press; ``touch`` names the touch gesture that made it, for the records."""
        self.move_cursor(sx, sy)

        def hit(part: str, window: Window | None = None, target: WidgetRef | None = None,
                item: str | None = None) -> None:  # fmt: skip
            record = ClickRecord(button, count, (sx, sy), part, window.id if window else None, target, item, touch)
            self.desktop.provenance.clicks.append(record)

        popup = self.desktop.popup
        if popup is not None:
            if popup.rect.contains(sx, sy):
                index = popup.index_at(sx, sy)
                hit("popup", popup.owner.window, popup.owner.ref, None if index is None else popup.items[index].label)
                if button == "left":
                    popup.click(sx, sy)
                self.desktop.invalidate()
            else:
                hit("outside popup", popup.owner.window, popup.owner.ref)
                self.desktop.close_popup()  # a click outside closes the popup and goes no further
            return
        if self.desktop.taskbar and sy >= self.desktop.height - TASKBAR_HEIGHT:
            hit("taskbar", self.taskbar_click(sx))
            return
        phone = self.desktop.phone
        part = None if phone is None else phone.chrome_part(sx, sy)
        if phone is not None and part is not None:
            hit(part)
            if button == "left":
                phone.press_chrome(sx, sy)
            return
        window = self.desktop.window_at(sx, sy)
        if window is None:
            hit("desktop")
            return
        modal = self.desktop.modal_window()
        if modal is not None and window is not modal:
            hit("blocked", window)
            self.desktop.raise_window(modal)  # refused: a modal dialog is open
            return
        self.desktop.raise_window(window)
        event = self._event(window, sx, sy, button, count)
        # A window that cannot move (a phone screen) lets its title bar hold widgets: a toolbar.
        if event.y < TITLE_HEIGHT and (window.movable or window.widget_at(event.x, event.y) is None):
            close = window.closable and window.close_rect().contains(event.x, event.y)
            hit("close" if close else "title", window)
            if button == "left" and (close or window.movable):
                self.capture = _Capture("close" if close else "move", window, offset=(event.x, event.y))
            return
        widget = window.widget_at(event.x, event.y)
        hit("widget", window, None if widget is None else widget.ref)
        if button == "left":
            if widget is not None and widget.on_mouse_down(event):
                self.capture = _Capture("widget", window, widget)
        elif button == "right":
            while widget is not None and not widget.on_context(event):
                widget = widget.parent
        window.invalidate()

    def mouse_move(self, sx: int, sy: int) -> None:
        self.move_cursor(sx, sy)
        capture = self.capture
        if capture is not None:
            window = capture.window
            if capture.kind == "move":
                area = self.desktop.work_area
                x = max(60 - window.rect.width, min(area.width - 60, sx - capture.offset[0]))
                y = max(0, min(area.height - TITLE_HEIGHT, sy - capture.offset[1]))
                if (x, y) != (window.rect.x, window.rect.y):
                    window.rect = Rect(x, y, window.rect.width, window.rect.height)
            elif capture.widget is not None:
                capture.widget.on_mouse_drag(self._event(window, sx, sy))
                window.invalidate()
            return
        popup = self.desktop.popup
        if popup is not None:
            if popup.hover(sx, sy):
                self.desktop.invalidate()
                return
            owner_window = popup.owner.window
            if owner_window is not None and popup.owner.screen_rect().contains(sx, sy):
                popup.owner.on_hover(self._event(owner_window, sx, sy))

    def mouse_up(self, sx: int, sy: int, button: str = "left") -> None:
        self.move_cursor(sx, sy)
        capture = self.capture
        if button != "left" or capture is None:
            return
        self.capture = None
        window = capture.window
        event = self._event(window, sx, sy, button)
        if capture.kind == "close":
            if window.close_rect().contains(event.x, event.y):
                window.dismiss()
        elif capture.widget is not None:
            capture.widget.on_mouse_up(event)
            window.invalidate()

    def scroll(self, sx: int, sy: int, dx: int, dy: int, amount: int = 1) -> bool:
        """Wheel ``amount`` clicks over ``(sx, sy)``; True when something scrolled."""
        self.move_cursor(sx, sy)
        event = ScrollEvent(sx, sy, dx, dy, amount)
        if self.desktop.popup is not None:
            if self.desktop.popup.rect.contains(sx, sy) and self.desktop.popup.on_scroll(event):
                self.desktop.invalidate()
                return True
            return False
        window = self.desktop.window_at(sx, sy)
        modal = self.desktop.modal_window()
        if window is None or (modal is not None and window is not modal):
            return False
        widget = window.widget_at(sx - window.rect.x, sy - window.rect.y)
        while widget is not None:
            if widget.enabled and widget.on_scroll(event):
                window.invalidate()
                return True
            widget = widget.parent
        return False

    def key(self, event: KeyEvent) -> None:
        """One key press, to the open popup or else the focused window."""
        self._record_key(event)
        popup = self.desktop.popup
        if popup is not None:
            if event.key == "escape" or (event.key == "tab" and not event.ctrl):
                self.desktop.close_popup()
            elif popup.on_key(event):
                self.desktop.invalidate()
            return
        window = self.desktop.focused_window
        if window is None:
            return
        if window.handle_key(event):
            window.invalidate()
        elif event.key == "f4" and event.alt and window.closable:
            window.dismiss()

    def _record_key(self, event: KeyEvent) -> None:
        """Where the key goes: to the open popup's owner, else to the focused window's focused widget."""
        popup = self.desktop.popup
        window: Window | None
        target: Widget | None
        if popup is not None:
            window, target = popup.owner.window, popup.owner
        else:
            window = self.desktop.focused_window
            target = None if window is None else window.focus_widget
        record = KeyRecord(event.key, event.mods, event.text, None if window is None else window.id,
                           None if target is None else target.ref, popup is not None)  # fmt: skip
        self.desktop.provenance.keys.append(record)

    def taskbar_click(self, sx: int) -> Window | None:
        """Raise the window whose taskbar button is at ``sx``; that window, if any."""
        for window, rect in self.desktop.taskbar_buttons():
            if rect.x <= sx < rect.right:
                self.desktop.raise_window(window)
                return window
        return None
