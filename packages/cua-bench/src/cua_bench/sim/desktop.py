"""The simulated desktop: windows in z-order, a pointer and keyboard, popups, a clipboard, a
virtual file system, and a frame rendered with Pillow that is re-drawn only when something changed.

Everything is a pure function of the seed and the actions applied, so two desktops fed the same
actions produce byte-identical frames.
"""

from __future__ import annotations

import io
import itertools
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageDraw

from cua_bench.sim.controls import Button, Label
from cua_bench.sim.dnd import Draggable, DropTarget, paint_chip
from cua_bench.sim.fs import VirtualFS
from cua_bench.sim.geometry import Rect, normalised_bounds
from cua_bench.sim.input import ActionInput
from cua_bench.sim.popups import Popup
from cua_bench.sim.provenance import Clip, Provenance
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text, text_width
from cua_bench.sim.router import EventRouter
from cua_bench.sim.widget import A11yContext, Widget
from cua_bench.sim.windows import TASKBAR_HEIGHT, TITLE_HEIGHT, Dialog, Window
from cua_core import Action, Point, from_pixels

if TYPE_CHECKING:
    from cua_bench.sim.phone import Phone

__all__ = ["TASKBAR_HEIGHT", "SimDesktop"]


_SCREENS = itertools.count(1)  # numbers every composed screen of this process


class SimDesktop:
    """A deterministic desktop driven by unified actions (``apply``) and read by evaluators
    (``find``, ``fs``, ``clipboard``, ``windows``, and ``provenance``: its records of what happened)."""

    def __init__(self, width: int = 1280, height: int = 800, seed: int = 0, *, taskbar: bool = False,
                 show_cursor: bool = False, fs: VirtualFS | None = None) -> None:  # fmt: skip
        if width < 200 or height < 150:
            raise ValueError(f"the sim desktop needs at least 200x150 pixels, got {width}x{height}")
        self.width, self.height, self.seed = width, height, seed
        self.rng = random.Random(seed)
        self.fs = fs if fs is not None else VirtualFS()
        self.clip = Clip("", ())
        self.provenance = Provenance()
        self.cursor = (width // 2, height // 2)
        self.taskbar = taskbar
        self.show_cursor = show_cursor
        self.popup: Popup | None = None
        self.phone: Phone | None = None  # set by Phone.install: this episode's desktop is a phone
        self.held: set[str] = set()
        self._windows: list[Window] = []  # back to front
        self._ids = itertools.count(1)
        self._ghost: tuple[Draggable, tuple[int, int]] | None = None
        self._dirty = True
        self._frame: Image.Image | None = None
        self._bytes: bytes | None = None
        self._png: bytes | None = None
        self._key = 0
        self._wallpaper = self._make_wallpaper()
        self.events = EventRouter(self)
        self._input = ActionInput(self)
        self.fs.subscribe(self._fs_changed)

    # --- windows ---------------------------------------------------------------------------

    def windows(self) -> list[Window]:
        """Open windows, front to back."""
        return list(reversed(self._windows))

    @property
    def focused_window(self) -> Window | None:
        return self._windows[-1] if self._windows else None

    @property
    def work_area(self) -> Rect:
        if self.phone is not None:
            return self.phone.work_area
        return Rect(0, 0, self.width, self.height - (TASKBAR_HEIGHT if self.taskbar else 0))

    def add_window(self, window: Window) -> Window:
        """Show ``window`` on top (below an open modal dialog, unless it is one itself)."""
        window.id = f"w{next(self._ids)}"
        window._desktop = self
        top = self.focused_window
        modal = self.modal_window()
        if modal is not None and not window.modal:
            self._windows.insert(self._windows.index(modal), window)
        else:
            self._windows.append(window)
        if top is not None:
            top.invalidate()
        if window.focus_widget is None:
            window.focus_next()
        window.invalidate()
        return window

    def open_window(self, title: str = "", x: int | None = None, y: int | None = None, width: int = 480,
                    height: int = 360, *, app: str = "", **kw: Any) -> Window:  # fmt: skip
        """A new empty window; without ``x``/``y`` windows cascade from the top left."""
        cx, cy = self._cascade(width, height)
        window = Window(title, cx if x is None else x, cy if y is None else y, width, height, app=app, **kw)
        return self.add_window(window)

    def _cascade(self, width: int, height: int) -> tuple[int, int]:
        step = len(self._windows) % 8
        area = self.work_area
        return (max(0, min(40 + 32 * step, area.width - width)), max(0, min(30 + 32 * step, area.height - height)))

    def open_dialog(self, title: str, message: str = "", buttons: tuple[str, ...] = ("OK",), *,
                    on_result: Any = None, width: int | None = None) -> Dialog:  # fmt: skip
        """A modal message box centred on the screen; the first button is the default."""
        lines = message.split("\n") if message else []
        width = width or max(320, min(self.width - 40, int(max([text_width(t) for t in lines] or [0])) + 40))
        height = TITLE_HEIGHT + 24 + len(lines) * LINE_HEIGHT + 30 + 24
        dialog = Dialog(title, (self.width - width) // 2, (self.height - height) // 3, width, height,
                        on_result=on_result)  # fmt: skip
        if message:
            dialog.add(Label(message))
        row = [Button(label, default=index == 0) for index, label in enumerate(buttons)]
        for button in row:
            button.on_click(lambda b: dialog.finish(b.label))
        dialog.add_row(*row, align="right")
        self.add_window(dialog)
        if row:
            dialog.set_focus(row[0])
        return dialog

    def remove_window(self, window: Window) -> None:
        if window not in self._windows:
            return
        if self.popup is not None and self.popup.owner.window is window:
            self.close_popup()
        if self.events.forget(window):
            self._ghost = None
        self._windows.remove(window)
        if self.focused_window is not None:
            self.focused_window.invalidate()
        self.invalidate()

    def modal_window(self) -> Window | None:
        return next((w for w in reversed(self._windows) if w.modal), None)

    def raise_window(self, window: Window) -> None:
        """Bring ``window`` to the front and give it focus (a modal dialog stays in front)."""
        modal = self.modal_window()
        if modal is not None and window is not modal:
            window = modal
        if self._windows and self._windows[-1] is window:
            return
        self.close_popup()
        old = self.focused_window
        self._windows.remove(window)
        self._windows.append(window)
        window.invalidate()
        if old is not None:
            old.invalidate()

    def window_at(self, sx: int, sy: int) -> Window | None:
        for window in reversed(self._windows):
            if window.rect.contains(sx, sy):
                return window
        return None

    def get_window(self, window_id: str) -> Window:
        for window in self._windows:
            if window.id == window_id:
                return window
        raise LookupError(f"no window {window_id!r}; open: {', '.join(w.id for w in self._windows) or 'none'}")

    def launch(self, app: str, **params: Any) -> Window:
        """Start a built-in app (``editor``, ``files``, ``form``) or one added with ``register_app``; on a
        phone, bring up one of its apps (by name or label; ``target=`` what in it, as a notification's)."""
        from cua_bench.sim.apps import launch_app

        if self.phone is not None:
            name = self.phone.named(app)
            unknown = sorted(set(params) - {"target"})
            if name is None or unknown:
                why = f"takes target=, not {', '.join(unknown)}" if name else f"has no app {app!r} ({self.phone.apps})"
                raise ValueError(f"launch on a phone: the phone {why}")
            return self.phone.open_app(name, params.get("target")).top
        return launch_app(self, app, **params)

    def _fs_changed(self) -> None:
        for window in self._windows:
            refresh = window.data.get("refresh")
            if callable(refresh):
                refresh()

    # --- the clipboard ---------------------------------------------------------------------

    @property
    def clipboard(self) -> str:
        """The clipboard's text (``clip`` also says where it was copied from)."""
        return self.clip.text

    @clipboard.setter
    def clipboard(self, text: str) -> None:
        self.clip = Clip.set_by_program(text)

    # --- queries for evaluators ------------------------------------------------------------

    def find_all(self, role: str | None = None, name: str | None = None, **state: Any) -> list[Any]:
        """Windows and widgets (front window first) with this role and name, and each other given
        attribute equal (``checked=True``, ``text="x"``)."""
        found: list[Any] = []
        for window in self.windows():
            things: list[Window | Widget] = [window, *window.all_widgets()]
            for thing in things:
                if role is not None and thing.role != role:
                    continue
                if name is not None and (thing.title if isinstance(thing, Window) else thing.name) != name:
                    continue
                if all(getattr(thing, key, object()) == value for key, value in state.items()):
                    found.append(thing)
        return found

    def find(self, role: str | None = None, name: str | None = None, **state: Any) -> Any:
        found = self.find_all(role, name, **state)
        if not found:
            wanted = ", ".join(f"{k}={v!r}" for k, v in {"role": role, "name": name, **state}.items() if v is not None)
            raise LookupError(f"no window or widget with {wanted}")
        return found[0]

    def cursor_position(self) -> Point:
        return from_pixels(self.cursor[0], self.cursor[1], self.width, self.height)

    # --- popups and drags ------------------------------------------------------------------

    def open_popup(self, popup: Popup) -> None:
        self.close_popup()
        self.popup = popup
        self.invalidate()

    def close_popup(self) -> None:
        popup, self.popup = self.popup, None
        if popup is None:
            return
        if popup.on_close is not None:
            popup.on_close()
        popup.owner.invalidate()
        self.invalidate()

    def begin_drag(self, chip: Draggable, grab: tuple[int, int]) -> None:
        self._ghost = (chip, grab)
        self.invalidate()

    def move_drag(self, sx: int, sy: int) -> None:
        self.invalidate()

    def end_drag(self) -> None:
        self._ghost = None
        self.invalidate()

    def drop_target_at(self, sx: int, sy: int) -> DropTarget | None:
        window = self.window_at(sx, sy)
        if window is None:
            return None
        widget = window.widget_at(sx - window.rect.x, sy - window.rect.y)
        while widget is not None and not isinstance(widget, DropTarget):
            widget = widget.parent
        return widget

    # --- input primitives (pixels) ---------------------------------------------------------

    def apply(self, action: Action) -> str | None:
        """Perform one unified action; None, or the reason it was refused (never raises)."""
        return self._input.apply(action)

    def taskbar_buttons(self) -> list[tuple[Window, Rect]]:
        ordered = sorted(self._windows, key=lambda w: int(w.id[1:]))
        top = self.height - TASKBAR_HEIGHT + 4
        return [(window, Rect(8 + index * 164, top, 160, TASKBAR_HEIGHT - 8)) for index, window in enumerate(ordered)]

    # --- rendering -------------------------------------------------------------------------

    def invalidate(self, *, windows: bool = False) -> None:
        """Mark the frame for re-composition; windows repaint only if they are dirty too (or all of
        them with ``windows=True``, for changes made behind the widgets' backs)."""
        self._dirty = True
        if windows:
            for window in self._windows:
                window.invalidate()

    def _make_wallpaper(self) -> Image.Image:
        hue = random.Random(self.seed).random()
        base = np.array(Theme.desktop, dtype=np.float32) * (0.85 + 0.3 * hue)
        ramp = np.linspace(1.0, 0.75, self.height, dtype=np.float32)[:, None, None]
        pixels = np.clip(base[None, None, :] * ramp, 0, 255).astype(np.uint8)
        return Image.fromarray(np.repeat(pixels, self.width, axis=1), "RGB")

    def _compose(self) -> Image.Image:
        if not self._dirty and self._frame is not None:
            return self._frame
        frame = self._wallpaper.copy()
        for window in self._windows:
            frame.paste(window.image(), (window.rect.x, window.rect.y))
        draw = ImageDraw.Draw(frame)
        if self.taskbar:
            self._paint_taskbar(draw)
        if self.phone is not None:
            self.phone.paint_chrome(draw)
        if self.popup is not None:
            self.popup.paint(draw)
        if self._ghost is not None:
            chip, grab = self._ghost
            x, y = self.cursor[0] - grab[0], self.cursor[1] - grab[1]
            paint_chip(draw, Rect(x, y, chip.rect.width, chip.rect.height), chip.name)
        if self.show_cursor:
            x, y = self.cursor
            draw.polygon([(x, y), (x, y + 16), (x + 4, y + 12), (x + 11, y + 12)], fill=(255, 255, 255),
                         outline=(0, 0, 0))  # fmt: skip
        self._frame, self._bytes, self._png, self._dirty = frame, None, None, False
        self._key = next(_SCREENS)
        return frame

    def _paint_taskbar(self, draw: ImageDraw.ImageDraw) -> None:
        draw.rectangle((0, self.height - TASKBAR_HEIGHT, self.width - 1, self.height - 1), fill=Theme.taskbar)
        for window, rect in self.taskbar_buttons():
            fill = Theme.taskbar_active if window is self.focused_window else Theme.taskbar_button
            draw.rectangle(rect.box(), fill=fill)
            draw_text(draw, rect.x + 8, rect.y + (rect.height - LINE_HEIGHT) // 2, window.title, Theme.title_text,
                      max_width=rect.width - 16)  # fmt: skip

    def render(self) -> Image.Image:
        """The screen as an RGB image (a copy: callers may draw on it)."""
        return self._compose().copy()

    def frame(self) -> bytes:
        """The screen as raw RGB bytes, ``width * height * 3``."""
        frame = self._compose()
        if self._bytes is None:
            self._bytes = frame.tobytes()
        return self._bytes

    def frame_key(self) -> int:
        """The current screen's number: unique across every desktop of this process, so an equal key
        means the same pixels (a new episode's desktop never repeats its predecessor's)."""
        self._compose()
        return self._key

    def frame_into(self, out: memoryview) -> None:
        """Write the screen's raw RGB bytes into ``out`` (``width * height * 3`` bytes, such as a
        shared-memory slot): one pass, where ``frame()`` and a copy of its bytes would be two."""
        frame = self._compose()
        if self._bytes is not None:
            out[:] = self._bytes
            return
        encoder = Image._getencoder("RGB", "raw", "RGB")  # what Image.tobytes runs, into our buffer
        try:
            encoder.setimage(frame.im, (0, 0, self.width, self.height))
            position = 0
            while True:
                _, status, data = encoder.encode(1 << 18)
                out[position : position + len(data)] = data
                position += len(data)
                if status:
                    break
        finally:
            encoder.cleanup()
        if status < 0 or position != len(out):
            raise RuntimeError(f"frame_into: the raw encoder wrote {position} of {len(out)} bytes (status {status})")

    def png(self) -> bytes:
        frame = self._compose()
        if self._png is None:
            out = io.BytesIO()
            frame.save(out, format="PNG", compress_level=1)
            self._png = out.getvalue()
        return self._png

    # --- accessibility ---------------------------------------------------------------------

    def a11y(self) -> list[dict[str, Any]]:
        """One node per window, front to back (and the taskbar last, when shown); a phone's own tree
        (status bar, the screens in view, nav bar) when one is installed."""
        if self.phone is not None:
            return self.phone.a11y()
        nodes = []
        for window in self.windows():
            node = window.node(A11yContext(window.rect, self.width, self.height))
            if node is not None:
                nodes.append(node)
        if self.taskbar:
            bar = Rect(0, self.height - TASKBAR_HEIGHT, self.width, TASKBAR_HEIGHT)
            buttons = [
                {"role": "button", "name": window.title, "bounds": normalised_bounds(rect, self.width, self.height),
                 "states": ["focused"] if window is self.focused_window else [], "value": window.id, "children": []}
                for window, rect in self.taskbar_buttons() if rect.right <= self.width
            ]  # fmt: skip
            bounds = normalised_bounds(bar, self.width, self.height)
            nodes.append({"role": "taskbar", "name": "Taskbar", "bounds": bounds, "states": [], "value": None,
                          "children": buttons})  # fmt: skip
        return nodes

    def iter_nodes(self) -> Iterator[dict[str, Any]]:
        from cua_bench.nodes import walk

        yield from walk(self.a11y())
