"""Drag and drop: chips (``Draggable``) that can be dropped onto ``DropTarget`` areas.

A drag is a press on a chip, pointer moves and a release: the ``drag`` action, or
``mouse_down`` / ``mouse_move`` / ``mouse_up``. While it lasts the desktop draws a ghost of the
chip under the pointer; releasing over a target (in any window) moves the chip into it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import ImageDraw

from cua_bench.sim.events import MouseEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text, focus_ring, text_width
from cua_bench.sim.widget import Callback, Widget

__all__ = ["Draggable", "DropTarget", "paint_chip"]

CHIP_HEIGHT = 28


def paint_chip(draw: ImageDraw.ImageDraw, rect: Rect, text: str) -> None:
    draw.rounded_rectangle(rect.box(), radius=5, fill=Theme.chip, outline=Theme.border)
    for dot in range(3):  # a grip, so it reads as something to drag
        y = rect.y + rect.height // 2 - 5 + dot * 5
        draw.rectangle((rect.x + 6, y, rect.x + 9, y + 2), fill=Theme.border)
    draw_text(draw, rect.x + 16, rect.y + (rect.height - LINE_HEIGHT) // 2, text, Theme.text,
              max_width=rect.width - 20)  # fmt: skip


class Draggable(Widget):
    """A chip to drag; it remembers where it is (``container``: a window or a DropTarget)."""

    role = "draggable"

    def __init__(self, name: str = "", **kw: Any) -> None:
        super().__init__(name, **kw)
        self.drops = 0
        self._grab: tuple[int, int] | None = None

    @property
    def container(self) -> Widget | None:
        """The DropTarget holding the chip, or None while it sits directly in its window."""
        return self.parent

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return min(available_width, int(text_width(self.name)) + 32), CHIP_HEIGHT

    def on_mouse_down(self, event: MouseEvent) -> bool:
        desktop = self.desktop
        if desktop is None or event.button != "left" or not self.enabled:
            return False
        self._grab = (event.x - self.rect.x, event.y - self.rect.y)
        desktop.begin_drag(self, self._grab)
        return True

    def on_mouse_drag(self, event: MouseEvent) -> None:
        if self.desktop is not None:
            self.desktop.move_drag(event.sx, event.sy)

    def on_mouse_up(self, event: MouseEvent) -> None:
        desktop = self.desktop
        self._grab = None
        if desktop is None:
            return
        desktop.end_drag()
        target = desktop.drop_target_at(event.sx, event.sy)
        if target is not None and target is not self.parent and target.accepts(self):
            target.accept(self)

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        paint_chip(draw, self.rect, self.name)
        if self.has_focus:
            focus_ring(draw, self.rect)


class DropTarget(Widget):
    """An area that takes chips; ``value`` (and ``items``) lists what was dropped, in order."""

    role = "droptarget"

    def __init__(self, name: str = "", *, accept: Callable[[Draggable], bool] | None = None,
                 on_drop: Callback | None = None, **kw: Any) -> None:  # fmt: skip
        super().__init__(name, **kw)
        self.accept_filter = accept
        self.on_drop = on_drop
        self._chips: list[Draggable] = []

    @property
    def items(self) -> list[str]:
        return [chip.name for chip in self._chips]

    def children(self) -> list[Widget]:
        return list(self._chips)

    def accepts(self, chip: Draggable) -> bool:
        return self.enabled and (self.accept_filter is None or self.accept_filter(chip))

    def accept(self, chip: Draggable) -> None:
        """Move ``chip`` here from wherever it is, as a drop does."""
        old_parent, old_window = chip.parent, chip.window
        if isinstance(old_parent, DropTarget):
            old_parent.release(chip)
        elif old_window is not None:
            old_window.remove(chip)
        self._chips.append(chip)
        chip.attach(self.window, self)
        chip.drops += 1
        self.layout()
        if self.on_drop:
            self.on_drop(self, chip)

    def release(self, chip: Draggable) -> None:
        self._chips.remove(chip)
        chip.attach(None, None)
        self.layout()

    def layout(self) -> None:
        for index, chip in enumerate(self._chips):
            chip.rect = Rect(self.rect.x + 8, self.rect.y + 26 + index * (CHIP_HEIGHT + 4), self.rect.width - 16,
                             CHIP_HEIGHT)  # fmt: skip
        self.invalidate()

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, 120

    def node_value(self) -> Any:
        return self.items

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        draw.rectangle(r.box(), fill=Theme.drop_bg, outline=Theme.drop_border, width=2)
        draw_text(draw, r.x + 8, r.y + 3, self.name, Theme.drop_border, max_width=r.width - 16)
        for chip in self._chips:
            if chip.visible:
                chip.paint(draw)
