"""What phone apps are made of: ``Screen`` (a window that fills the work area, whose title bar is the
app's toolbar), ``ToolbarButton`` and ``PhoneApp``, an app's stack of screens."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from PIL import ImageDraw

from cua_bench.sim.controls import Button, Label
from cua_bench.sim.geometry import Rect
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text, focus_ring, text_width
from cua_bench.sim.widget import Callback
from cua_bench.sim.windows import TITLE_HEIGHT, Dialog, Window

if TYPE_CHECKING:
    from cua_bench.sim.phone.surface import Phone

__all__ = ["PhoneApp", "Screen", "ToolbarButton"]

_TOOL_HEIGHT = TITLE_HEIGHT - 6


class ToolbarButton(Button):
    """A button in a screen's title bar: draws ``glyph`` ("+") and is named for what it does."""

    def __init__(self, name: str, glyph: str, on_click: Callback | None = None, **kw: Any) -> None:
        super().__init__(name, on_click, **kw)
        self.glyph = glyph

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        fill = Theme.button_pressed if self._pressed else Theme.button_default
        draw.rounded_rectangle(r.box(), radius=4, fill=fill, outline=Theme.border)
        draw_text(draw, r.x + (r.width - text_width(self.glyph)) / 2, r.y + (r.height - LINE_HEIGHT) // 2,
                  self.glyph, Theme.text)  # fmt: skip
        if self.has_focus:
            focus_ring(draw, r)


class Screen(Window):
    """One screen of a phone app: fills the phone's work area, cannot be moved or closed by an ×;
    its title bar shows the screen's title and holds its toolbar buttons (``add_action``)."""

    def __init__(self, area: Rect, title: str, *, app: str = "") -> None:
        super().__init__(title, area.x, area.y, area.width, area.height, app=app, closable=False, movable=False)
        self._action_x = area.width - 4

    def add_action(self, name: str, glyph: str, on_click: Callback) -> ToolbarButton:
        """A toolbar button at the right of the title bar, right to left in the order added."""
        width = max(28, int(text_width(glyph)) + 16)
        self._action_x -= width + 4
        button = ToolbarButton(name, glyph, on_click, x=self._action_x, y=3, width=width, height=_TOOL_HEIGHT)
        self.add(button)
        return button

    def on_back(self) -> bool:
        """The back button, before the app pops this screen: True when the screen used it."""
        return False


class PhoneApp:
    """A running phone app: a stack of screens, its root at the bottom. Subclasses set ``name`` and
    ``label`` and build the root screen in ``start``; state that outlives the app (its notes, its
    messages) belongs in ``data``, the phone's store for this app."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""

    def __init__(self, phone: Phone) -> None:
        self.phone = phone
        self.stack: list[Screen] = []

    @property
    def data(self) -> dict[str, Any]:
        return self.phone.app_data(self.name)

    @property
    def top(self) -> Screen:
        return self.stack[-1]

    def start(self) -> None:
        """Push the root screen."""
        raise NotImplementedError

    def open_target(self, target: str) -> None:
        """Show what a notification points at (a note, a conversation); the root stays below."""

    def screen(self, title: str) -> Screen:
        """A new screen of this app, sized to the work area, to fill and ``push``."""
        return Screen(self.phone.work_area, title, app=self.name)

    def push(self, screen: Screen) -> Screen:
        self.phone.desktop.add_window(screen)
        self.stack.append(screen)
        return screen

    def pop(self) -> bool:
        """Close the top screen, unless it is the root; whether one closed."""
        if len(self.stack) <= 1:
            return False
        self.stack.pop().close()
        return True

    def back(self) -> bool:
        """The back button: the top screen's own use of it, else a pop; False at the root."""
        return bool(self.stack) and (self.top.on_back() or self.pop())

    def confirm(self, question: str, yes: str, on_yes: Callable[[], Any]) -> Dialog:
        """A dialog of this app over its screen: ``question``, with Cancel and ``yes`` (which calls
        ``on_yes``); back or Cancel answers no. While it is open, home and recents wait for an answer."""
        area = self.phone.work_area

        def answered(result: str | None) -> None:
            if result == yes:
                on_yes()

        dialog = Dialog(self.label, area.x + 16, area.y + area.height // 3, area.width - 32, 150, app=self.name,
                        closable=False, movable=False, on_result=answered)  # fmt: skip
        dialog.add(Label(question))
        dialog.add_row(Button("Cancel", lambda _: dialog.finish("Cancel")), Button(yes, lambda _: dialog.finish(yes)),
                       align="right")  # fmt: skip
        self.phone.desktop.add_window(dialog)
        return dialog

    def close(self) -> None:
        while self.stack:
            self.stack.pop().close()
