"""Windows and modal dialogs: a title bar to drag, a close button, a client area laid out as a
vertical stack (or at absolute positions), keyboard focus with tab traversal, and a default button.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from cua_bench.sim.controls import Button, Label
from cua_bench.sim.events import KeyEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.menus import BAR_HEIGHT, MenuBar
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text
from cua_bench.sim.widget import A11yContext, Widget

if TYPE_CHECKING:
    from cua_bench.sim.desktop import SimDesktop

__all__ = ["TASKBAR_HEIGHT", "TITLE_HEIGHT", "Dialog", "Window"]

TITLE_HEIGHT = 30
TASKBAR_HEIGHT = 36


class Window:
    """A top-level window. ``add`` stacks widgets top to bottom unless they were given ``x`` and ``y``.

    ``data`` is free for apps to keep state evaluators read (a form's submitted values).
    """

    role = "window"
    modal = False

    def __init__(self, title: str = "", x: int = 0, y: int = 0, width: int = 480, height: int = 360, *,
                 app: str = "", closable: bool = True, movable: bool = True, padding: int = 12, spacing: int = 8,
                 label_width: int = 110) -> None:  # fmt: skip
        self._desktop: SimDesktop | None = None
        self._dirty = True
        self._image: Image.Image | None = None
        self._next_y = TITLE_HEIGHT + padding
        self._widgets: list[Widget] = []
        self.id = ""
        self.title = title
        self.app = app
        self.rect = Rect(x, y, width, height)
        self.closable = closable
        self.movable = movable
        self.padding, self.spacing, self.label_width = padding, spacing, label_width
        self.focus_widget: Widget | None = None
        self.on_close: Callable[[Window], bool | None] | None = None
        self.data: dict[str, Any] = {}
        self.closed = False

    def __setattr__(self, key: str, value: Any) -> None:
        object.__setattr__(self, key, value)
        if key[0] != "_":
            self.invalidate()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} {self.title!r}>"

    @property
    def desktop(self) -> SimDesktop | None:
        return self._desktop

    @property
    def widgets(self) -> list[Widget]:
        return list(self._widgets)

    @property
    def active(self) -> bool:
        desktop = self._desktop
        return desktop is not None and desktop.focused_window is self

    def invalidate(self) -> None:
        self._dirty = True
        desktop = getattr(self, "_desktop", None)
        if desktop is not None:
            desktop.invalidate()

    # --- layout ----------------------------------------------------------------------------

    def add(self, widget: Widget, *, label: str | None = None, fill: bool = False) -> Widget:
        """Place ``widget`` below the previous one (with a caption ``label`` on its left), or at its
        own ``x``/``y``; ``fill`` stretches it to the bottom of the window. Returns the widget."""
        if isinstance(widget, MenuBar):
            widget.rect = Rect(1, TITLE_HEIGHT, self.rect.width - 2, BAR_HEIGHT)
            self._next_y = max(self._next_y, TITLE_HEIGHT + BAR_HEIGHT + self.padding)
        elif widget._placed:
            want_w, want_h = widget._want
            pref_w, pref_h = widget.preferred_size(want_w or self.rect.width - widget.rect.x - self.padding)
            widget.rect = Rect(widget.rect.x, widget.rect.y, want_w or pref_w, want_h or pref_h)
        else:
            left, available = self.padding, self.rect.width - 2 * self.padding
            caption = None
            if label is not None:
                caption = Label(label)
                left += self.label_width + 8
                available -= self.label_width + 8
                if not widget.name:
                    widget.name = label
            want_w, want_h = widget._want
            pref_w, pref_h = widget.preferred_size(available)
            height = want_h or pref_h
            if fill:
                height = max(LINE_HEIGHT, self.rect.height - self._next_y - self.padding)
            widget.rect = Rect(left, self._next_y, min(available, want_w or pref_w), height)
            if caption is not None:
                top = self._next_y + max(0, (min(height, 30) - LINE_HEIGHT) // 2)
                caption.rect = Rect(self.padding, top, self.label_width, LINE_HEIGHT)
                self._attach(caption)
            self._next_y += height + self.spacing
        self._attach(widget)
        return widget

    def add_row(self, *widgets: Widget, align: str = "left") -> list[Widget]:
        """Place widgets side by side at their preferred widths on the next row."""
        available = self.rect.width - 2 * self.padding
        sizes = []
        for widget in widgets:
            want_w, want_h = widget._want
            pref_w, pref_h = widget.preferred_size(available // max(1, len(widgets)))
            sizes.append((want_w or pref_w, want_h or pref_h))
        total = sum(w for w, _ in sizes) + self.spacing * (len(widgets) - 1)
        x = self.padding if align == "left" else self.rect.width - self.padding - total
        height = max((h for _, h in sizes), default=0)
        for widget, (width, h) in zip(widgets, sizes, strict=True):
            widget.rect = Rect(x, self._next_y, width, h)
            self._attach(widget)
            x += width + self.spacing
        self._next_y += height + self.spacing
        return list(widgets)

    def skip(self, pixels: int) -> None:
        """Leave vertical space before the next stacked widget."""
        self._next_y += pixels

    def _attach(self, widget: Widget) -> None:
        self._widgets.append(widget)
        widget.attach(self)
        widget.layout()
        if self.focus_widget is None and widget.can_focus():
            self.set_focus(widget)  # a new window starts with its first control focused
        self.invalidate()

    def remove(self, widget: Widget) -> None:
        if widget in self._widgets:
            self._widgets.remove(widget)
        if self.focus_widget is not None and (self.focus_widget is widget or self.focus_widget.parent is widget):
            self.focus_widget = None
        widget.attach(None)
        self.invalidate()

    # --- the widget tree -------------------------------------------------------------------

    def all_widgets(self) -> Iterator[Widget]:
        """Every widget, depth first, in the order they were added (the tab order)."""

        def visit(widgets: Sequence[Widget]) -> Iterator[Widget]:
            for widget in widgets:
                yield widget
                yield from visit(widget.children())

        yield from visit(self._widgets)

    def widget_at(self, x: int, y: int) -> Widget | None:
        """The innermost visible widget under window-local ``(x, y)``, the last added on top."""

        def search(widgets: Sequence[Widget]) -> Widget | None:
            for widget in reversed(widgets):
                if not widget.visible:
                    continue
                inner = search(widget.children())
                if inner is not None:
                    return inner
                if widget.rect.contains(x, y):
                    return widget
            return None

        return search(self._widgets)

    def find(self, role: str | None = None, name: str | None = None) -> Widget:
        for widget in self.all_widgets():
            if (role is None or widget.role == role) and (name is None or widget.name == name):
                return widget
        raise LookupError(f"{self!r} has no widget with role={role!r} name={name!r}")

    def menubar(self) -> MenuBar | None:
        return next((w for w in self._widgets if isinstance(w, MenuBar)), None)

    # --- focus and keys --------------------------------------------------------------------

    def set_focus(self, widget: Widget | None) -> None:
        old = self.focus_widget
        if widget is old:
            return
        self.focus_widget = widget
        if old is not None:
            old.on_focus_change(False)
        if widget is not None:
            widget.on_focus_change(True)

    def focus_next(self, step: int = 1) -> None:
        chain = [widget for widget in self.all_widgets() if widget.can_focus()]
        if not chain:
            return
        index = chain.index(self.focus_widget) if self.focus_widget in chain else (-1 if step > 0 else 0)
        self.set_focus(chain[(index + step) % len(chain)])

    def default_button(self) -> Button | None:
        for widget in self.all_widgets():
            if isinstance(widget, Button) and widget.default and widget.enabled and widget.visible:
                return widget
        return None

    def handle_key(self, event: KeyEvent) -> bool:
        widget = self.focus_widget
        if widget is not None and widget.enabled and widget.visible and widget.on_key(event):
            return True
        if event.key == "tab" and not (event.ctrl or event.alt):
            self.focus_next(-1 if event.shift else 1)
            return True
        bar = self.menubar()
        if bar is not None and (bar.shortcut(event) or bar.mnemonic(event)):
            return True
        if event.key == "enter" and not event.mods:
            button = self.default_button()
            if button is not None:
                button.activate()
                return True
        if event.key == "escape" and not event.mods:
            return self.on_escape()
        return False

    def on_escape(self) -> bool:
        return False

    # --- life ------------------------------------------------------------------------------

    def close(self) -> bool:
        """Close the window (``on_close`` may veto by returning False). Returns whether it closed."""
        if self.on_close is not None and self.on_close(self) is False:
            return False
        if self._desktop is not None:
            self._desktop.remove_window(self)
        self.closed = True
        return True

    def dismiss(self) -> None:
        """What the title bar's close button does."""
        self.close()

    def close_rect(self) -> Rect:
        return Rect(self.rect.width - 28, 5, 22, 20)

    # --- drawing and accessibility ---------------------------------------------------------

    def image(self) -> Image.Image:
        """The window drawn at its own size; repainted only after something changed."""
        if self._dirty or self._image is None or self._image.size != (self.rect.width, self.rect.height):
            self._image = self.paint()
            self._dirty = False
        return self._image

    def paint(self) -> Image.Image:
        w, h = self.rect.width, self.rect.height
        image = Image.new("RGB", (w, h), Theme.window_bg)
        draw = ImageDraw.Draw(image)
        draw.rectangle(
            (0, 0, w - 1, TITLE_HEIGHT - 1), fill=Theme.title_active if self.active else Theme.title_inactive
        )
        draw_text(draw, 10, (TITLE_HEIGHT - LINE_HEIGHT) // 2, self.title, Theme.title_text, max_width=w - 50)
        if self.closable:
            c = self.close_rect()
            draw.rectangle(c.box(), fill=Theme.close_hover if self.active else Theme.title_inactive)
            cx, cy = c.x + c.width // 2, c.y + c.height // 2
            draw.line([(cx - 5, cy - 5), (cx + 5, cy + 5)], fill=Theme.title_text, width=2)
            draw.line([(cx - 5, cy + 5), (cx + 5, cy - 5)], fill=Theme.title_text, width=2)
        for widget in self._widgets:
            if widget.visible:
                widget.paint(draw)
        draw.rectangle((0, 0, w - 1, h - 1), outline=Theme.border)
        return image

    def states(self) -> list[str]:
        states = ["focused"] if self.active else []
        if self.modal:
            states.append("modal")
        return states

    def node(self, ctx: A11yContext) -> dict[str, Any] | None:
        bounds = ctx.bounds(Rect(0, 0, self.rect.width, self.rect.height))
        if bounds is None:
            return None
        children: list[dict[str, Any]] = []
        close_bounds = ctx.bounds(self.close_rect()) if self.closable else None
        if close_bounds is not None:
            children.append({"role": "button", "name": "Close", "bounds": close_bounds, "states": [],
                             "value": None, "children": []})  # fmt: skip
        for widget in self._widgets:
            if widget.visible:
                children.extend(widget.nodes(ctx))
        return {"role": self.role, "name": self.title, "bounds": bounds, "states": self.states(),
                "value": self.id, "children": children}  # fmt: skip


class Dialog(Window):
    """A modal window: while it is open, clicks on other windows are refused. Escape cancels.

    ``result`` is the label of the button that closed it (None when cancelled).
    """

    role = "dialog"
    modal = True

    def __init__(self, title: str = "", *args: Any, on_result: Callable[[str | None], Any] | None = None,
                 **kw: Any) -> None:  # fmt: skip
        super().__init__(title, *args, **kw)
        self.on_result = on_result
        self.result: str | None = None

    def finish(self, result: str | None) -> None:
        """Close with ``result`` and tell ``on_result``."""
        self.result = result
        if self.close() and self.on_result is not None:
            self.on_result(result)

    def on_escape(self) -> bool:
        self.finish(None)
        return True

    def dismiss(self) -> None:
        self.finish(None)
