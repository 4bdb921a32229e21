"""``Phone``: a SimDesktop turned into a phone for one episode: status and nav bars, a launcher, apps
as stacks of screens, recents, notifications and their shade, and the touch gestures a phone has.

Every app screen is a window on the desktop, so widgets, focus, provenance and rendering are the
desktop's own; the phone only decides which screens are on top and what the system buttons do.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PIL import ImageDraw

from cua_bench.sim.controls import Button, Label
from cua_bench.sim.events import KeyEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.phone.chrome import (
    NAV_HEIGHT,
    STATUS_HEIGHT,
    nav_nodes,
    nav_rects,
    paint_nav,
    paint_status,
    status_nodes,
)
from cua_bench.sim.phone.registry import PHONE_APPS
from cua_bench.sim.phone.screens import PhoneApp, Screen
from cua_bench.sim.widget import A11yContext, Widget
from cua_bench.sim.windows import Window

if TYPE_CHECKING:
    from cua_bench.sim.desktop import SimDesktop

__all__ = ["Gesture", "Notification", "Phone"]

SWIPE_MIN = 16  # pixels: a shorter slide is a wobbly tap, not a swipe
SCROLL_STEP = 64  # pixels of swipe per wheel click (3 rows of a list, 3 lines of text)
_ICON_SIZE = 72


@dataclass
class Notification:
    """One notification; ``target`` is what it opens in its app (None: the app's root screen)."""

    id: int
    app: str
    title: str
    text: str
    target: str | None = None
    opened: bool = False


@dataclass(frozen=True)
class Gesture:
    """A swipe and what the phone made of it: ``shade open``, ``shade close``, ``scroll`` or ``drag``."""

    kind: str
    start: tuple[int, int]
    end: tuple[int, int]


class Phone:
    """The phone on one desktop. ``current`` is the app on screen (None: home); ``recents`` the open
    apps, most recent first; ``notifications`` all of them, each marked ``opened`` once tapped."""

    def __init__(self, desktop: SimDesktop, apps: Sequence[str]) -> None:
        unknown = [name for name in apps if name not in PHONE_APPS]
        if unknown:
            raise ValueError(f"no phone app {', '.join(map(repr, unknown))}; known: {', '.join(PHONE_APPS)}")
        self.desktop = desktop
        self.apps = list(apps)
        self.work_area = Rect(0, STATUS_HEIGHT, desktop.width, desktop.height - STATUS_HEIGHT - NAV_HEIGHT)
        rng = random.Random(desktop.seed * 7919 + 17)
        minutes = rng.randrange(7 * 60, 22 * 60)
        self.clock = f"{minutes // 60:02d}:{minutes % 60:02d}"
        self.battery = rng.randrange(20, 101)
        self.notifications: list[Notification] = []
        self.gestures: list[Gesture] = []
        self.running: dict[str, PhoneApp] = {}
        self.current: str | None = None
        self.overlay: Screen | None = None
        self._recent: list[str] = []  # least recent first
        self._data: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self.launcher = self._make_launcher()

    @classmethod
    def install(cls, desktop: SimDesktop, apps: Sequence[str] | None = None) -> Phone:
        """Make ``desktop`` (portrait, new this episode) a phone with ``apps`` (default: every
        registered phone app) on its launcher."""
        if desktop.phone is not None:
            raise ValueError("this desktop is already a phone")
        if desktop.width >= desktop.height:
            raise ValueError(f"a phone needs a portrait screen, got {desktop.width}x{desktop.height}")
        phone = cls(desktop, list(PHONE_APPS) if apps is None else apps)
        desktop.phone = phone
        desktop.taskbar = False
        desktop.add_window(phone.launcher)
        desktop.invalidate(windows=True)
        return phone

    def _make_launcher(self) -> Screen:
        screen = Screen(self.work_area, "Home", app="launcher")
        columns = max(1, (self.work_area.width - 16) // (_ICON_SIZE + 16))
        gap = (self.work_area.width - columns * _ICON_SIZE) // (columns + 1)
        for index, name in enumerate(self.apps):
            row, column = divmod(index, columns)
            x, y = gap + column * (_ICON_SIZE + gap), 40 + row * (_ICON_SIZE + 24)
            screen.add(Button(PHONE_APPS[name].label, lambda _, name=name: self.open_app(name), x=x, y=y,
                              width=_ICON_SIZE, height=_ICON_SIZE))  # fmt: skip
        return screen

    # --- apps ------------------------------------------------------------------------------

    def app_data(self, app: str) -> dict[str, Any]:
        """The app's state for this episode (tasks seed it, evaluators read it); it outlives the app."""
        return self._data.setdefault(app, {})

    def state(self) -> dict[str, dict[str, Any]]:
        """Every app's state, copied: what an evaluator compares whole with what setup left."""
        return copy.deepcopy({app: data for app, data in self._data.items() if data})

    @property
    def recents(self) -> list[str]:
        return list(reversed(self._recent))

    @property
    def shade_open(self) -> bool:
        return self.overlay is not None and self.overlay.app == "shade"

    @property
    def recents_open(self) -> bool:
        return self.overlay is not None and self.overlay.app == "recents"

    def open_app(self, name: str, target: str | None = None) -> PhoneApp:
        """Bring ``name`` to the front (starting it if it is not running), showing ``target`` if given."""
        if name not in self.apps:
            raise ValueError(f"the phone has no app {name!r}; it has {', '.join(self.apps) or 'none'}")
        self.close_overlay()
        app = self.running.get(name)
        if app is None:
            app = self.running[name] = PHONE_APPS[name](self)
            app.start()
        self._show(name)
        if target is not None:
            app.open_target(target)
        return app

    def launch(self, app: str) -> str | None:
        """The ``open_app`` action: the app whose name or launcher label is ``app`` (in any case) comes
        to the front; None, or why the phone refused."""
        if self.desktop.modal_window() is not None:
            return "open_app: a dialog is open; answer it (or press back) first"
        found = self.named(app)
        if found is None:
            labels = ", ".join(PHONE_APPS[n].label for n in self.apps) or "none"
            return f"open_app: the phone has no app {app!r}; its apps are {labels}"
        self.desktop.close_popup()
        self.open_app(found)
        return None

    def named(self, app: str) -> str | None:
        """The app on this phone whose name or launcher label is ``app``, in any case."""
        wanted = app.casefold()
        return next((n for n in self.apps if wanted in (n.casefold(), PHONE_APPS[n].label.casefold())), None)

    def _show(self, name: str) -> None:
        for screen in self.running[name].stack:
            self.desktop.raise_window(screen)
        self.current = name
        if name in self._recent:
            self._recent.remove(name)
        self._recent.append(name)

    def close_app(self, name: str) -> None:
        """Close a running app; when it was on screen, the previous app (or home) shows."""
        app = self.running.pop(name, None)
        if app is None:
            return
        reopen = self.recents_open  # closing from the recents screen keeps it open, refreshed
        app.close()
        self._recent.remove(name)
        if self.current == name and self._recent:
            self._show(self._recent[-1])
        elif self.current == name:
            self.go_home()
        if reopen:
            self.show_recents()

    def go_home(self) -> None:
        self.close_overlay()
        self.desktop.raise_window(self.launcher)
        self.current = None

    # --- system buttons --------------------------------------------------------------------

    def system_button(self, button: str) -> str | None:
        """Press ``home``, ``back`` or ``recent``; None, or why the phone refused."""
        if button == "enter":  # the on-screen keyboard's Enter, as Android's KEYCODE_ENTER
            self.desktop.events.key(KeyEvent("enter", frozenset()))
            return None
        if button not in ("home", "back", "recent"):
            return f"system_button: the sim phone has no {button!r} button; it has home, back, recent and enter"
        if button != "back" and self.desktop.modal_window() is not None:
            return f"system_button: {button}: a dialog is open; answer it (or press back) first"
        if button == "back" and self.desktop.popup is not None:  # back closes an open list, and only that
            self.desktop.close_popup()
            return None
        self.desktop.close_popup()
        if button == "home":
            self.go_home()
        elif button == "recent":
            if self.recents_open:
                self.close_overlay()
            else:
                self.show_recents()
        else:
            self.back()
        return None

    def back(self) -> None:
        """An overlay closes, else a dialog, else the top screen handles it or pops; at an app's root
        the app closes. At home it does nothing."""
        if self.overlay is not None:
            self.close_overlay()
            return
        modal = self.desktop.modal_window()
        if modal is not None:
            modal.dismiss()
            return
        if self.current is None:
            return
        if not self.running[self.current].back():
            self.close_app(self.current)

    # --- overlays: the recents screen and the notification shade ---------------------------

    def _open_overlay(self, kind: str, title: str) -> Screen:
        self.close_overlay()
        screen = Screen(self.work_area, title, app=kind)
        self.overlay = screen
        return screen

    def close_overlay(self) -> None:
        overlay, self.overlay = self.overlay, None
        if overlay is not None:
            overlay.close()

    def show_recents(self) -> None:
        screen = self._open_overlay("recents", "Recents")
        for name in self.recents:
            label = PHONE_APPS[name].label
            screen.add_row(Button(label, lambda _, name=name: self.open_app(name), width=180),
                           Button(f"Close {label}", lambda _, name=name: self.close_app(name)))  # fmt: skip
        if not self._recent:
            screen.add(Label("No recent apps"))
        self.desktop.add_window(screen)

    def open_shade(self) -> None:
        screen = self._open_overlay("shade", "Notifications")
        for note in self.pending():
            label = PHONE_APPS[note.app].label
            screen.add(Button(note.title, lambda _, note=note: self.open_notification(note), height=36))
            screen.add(Label(f"{label}: {note.text}" if note.text else label))
        if not self.pending():
            screen.add(Label("No notifications"))
        self.desktop.add_window(screen)

    # --- notifications ---------------------------------------------------------------------

    def notify(self, app: str, title: str, text: str = "", *, target: str | None = None) -> Notification:
        """Post a notification from ``app``; tapping it in the shade opens ``target`` in the app."""
        if app not in self.apps:
            raise ValueError(f"the phone has no app {app!r}; it has {', '.join(self.apps) or 'none'}")
        note = Notification(next(self._ids), app, title, text, target)
        self.notifications.append(note)
        self.desktop.invalidate()
        if self.shade_open:
            self.open_shade()
        return note

    def pending(self) -> list[Notification]:
        """Notifications not opened yet, newest first."""
        return [note for note in reversed(self.notifications) if not note.opened]

    def open_notification(self, note: Notification) -> None:
        note.opened = True
        self.desktop.invalidate()
        self.open_app(note.app, note.target)

    # --- touch -----------------------------------------------------------------------------

    def swipe(self, start: tuple[int, int], end: tuple[int, int]) -> bool:
        """A swipe the phone handles (the shade, scrolling); False leaves it to be a drag."""
        dx, dy = end[0] - start[0], end[1] - start[1]
        vertical = abs(dy) >= SWIPE_MIN and abs(dy) > abs(dx)
        kind = "drag"
        if vertical and self.desktop.modal_window() is None and self.desktop.popup is None:
            if start[1] < STATUS_HEIGHT and dy > 0:
                self.open_shade()
                kind = "shade open"
            elif self.shade_open and dy < 0:
                self.close_overlay()
                kind = "shade close"
        popup = self.desktop.popup
        over_popup = popup is not None and popup.rect.contains(*start)  # an open list scrolls under the finger
        if kind == "drag" and vertical and (over_popup or self._scrollable_at(start) is not None):
            # Finger up moves the content up: the view scrolls down, by about the finger's travel.
            clicks = max(1, round(abs(dy) / SCROLL_STEP))
            self.desktop.events.scroll(start[0], start[1], 0, 1 if dy < 0 else -1, clicks)
            kind = "scroll"
        self.gestures.append(Gesture(kind, start, end))
        return kind != "drag"

    def _scrollable_at(self, at: tuple[int, int]) -> Widget | None:
        if self.chrome_part(*at) is not None:
            return None
        window = self.desktop.window_at(*at)
        if window is None:
            return None
        widget = window.widget_at(at[0] - window.rect.x, at[1] - window.rect.y)
        while widget is not None and type(widget).on_scroll is Widget.on_scroll:
            widget = widget.parent
        return widget

    def chrome_part(self, sx: int, sy: int) -> str | None:
        """``status bar`` or ``nav bar`` when the point is on one; None in the work area."""
        if sy < STATUS_HEIGHT:
            return "status bar"
        if sy >= self.desktop.height - NAV_HEIGHT:
            return "nav bar"
        return None

    def press_chrome(self, sx: int, sy: int) -> None:
        """A tap on the status or nav bar: a nav button presses its system button."""
        for _, button, rect in nav_rects(self.desktop.width, self.desktop.height):
            if rect.contains(sx, sy):
                self.system_button(button)
                return

    # --- drawing and accessibility ---------------------------------------------------------

    def paint_chrome(self, draw: ImageDraw.ImageDraw) -> None:
        width, height = self.desktop.width, self.desktop.height
        paint_status(draw, width, self.clock, self.battery, [note.app for note in self.pending()])
        paint_nav(draw, width, height)

    def visible_windows(self) -> list[Window]:
        """The windows in view, front to back: down to the first that covers the work area."""
        shown: list[Window] = []
        area = self.work_area
        for window in self.desktop.windows():
            shown.append(window)
            if window.rect.intersect(area) == area:
                break
        return shown

    def a11y(self) -> list[dict[str, Any]]:
        """The status bar, the windows in view (front to back), the nav bar."""
        size = (self.desktop.width, self.desktop.height)
        nodes = [status_nodes(size, self.clock, self.battery, [(note.app, note.title) for note in self.pending()])]
        for window in self.visible_windows():
            node = window.node(A11yContext(window.rect, *size))
            if node is not None:
                nodes.append(node)
        nodes.append(nav_nodes(size))
        return nodes
