"""Popups drawn above every window: a dropdown's option list and menus (menu bar and context).

A popup owns the pointer and the keyboard while it is open: arrows move the highlight, enter
chooses, escape closes, a click outside closes it (and is swallowed, as toolkits do).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PIL import ImageDraw

from cua_bench.sim.events import KeyEvent, ScrollEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text, text_width
from cua_bench.sim.widget import A11yContext

if TYPE_CHECKING:
    from cua_bench.sim.widget import Widget

__all__ = ["ListPopup", "MenuPopup", "Popup", "PopupItem"]

ROW = 24
SEPARATOR = "-"


class PopupItem:
    """One row: a label, an optional shortcut shown on the right, and whether it can be chosen."""

    __slots__ = ("enabled", "label", "shortcut")

    def __init__(self, label: str, shortcut: str = "", enabled: bool = True) -> None:
        self.label, self.shortcut, self.enabled = label, shortcut, enabled

    @property
    def separator(self) -> bool:
        return self.label == SEPARATOR


class Popup:
    """A list of rows at a screen position; ``on_choose(index)`` runs when a row is chosen."""

    role = "list"
    item_role = "listitem"

    def __init__(self, owner: Widget, items: Sequence[PopupItem], on_choose: Callable[[int], Any], *,
                 anchor: Rect, screen: tuple[int, int], current: int = -1, max_rows: int = 10,
                 min_width: int = 0) -> None:  # fmt: skip
        self.owner = owner
        self.items = list(items)
        self.on_choose = on_choose
        self.current = current
        self.highlight = current if self._choosable(current) else -1
        self.max_rows = max_rows
        self.top = 0
        width = max([min_width, 80, *(self._row_width(item) for item in self.items)])
        rows = min(len(self.items), max_rows)
        height = rows * ROW + 4
        x = min(anchor.x, screen[0] - width)
        y = anchor.bottom if anchor.bottom + height <= screen[1] else max(0, anchor.y - height)
        self.rect = Rect(max(0, x), y, width, height)
        self.on_close: Callable[[], None] | None = None
        self._scroll_to(self.highlight)

    def _row_width(self, item: PopupItem) -> int:
        extra = text_width(item.shortcut) + 32 if item.shortcut else 0
        return int(text_width(item.label) + extra) + 28

    def _choosable(self, index: int) -> bool:
        return 0 <= index < len(self.items) and self.items[index].enabled and not self.items[index].separator

    def row_rect(self, index: int) -> Rect:
        return Rect(self.rect.x + 2, self.rect.y + 2 + (index - self.top) * ROW, self.rect.width - 4, ROW)

    def visible_rows(self) -> range:
        return range(self.top, min(len(self.items), self.top + self.max_rows))

    def index_at(self, sx: int, sy: int) -> int | None:
        if not self.rect.contains(sx, sy):
            return None
        index = self.top + (sy - self.rect.y - 2) // ROW
        return index if index in self.visible_rows() else None

    def _scroll_to(self, index: int) -> None:
        if index < 0:
            return
        if index < self.top:
            self.top = index
        elif index >= self.top + self.max_rows:
            self.top = index - self.max_rows + 1

    # --- input -----------------------------------------------------------------------------

    def choose(self, index: int) -> bool:
        if not self._choosable(index):
            return False
        self.on_choose(index)
        return True

    def click(self, sx: int, sy: int) -> bool:
        """A click inside chooses the row under it; returns False when the click is outside."""
        index = self.index_at(sx, sy)
        if index is None:
            return self.rect.contains(sx, sy)
        self.choose(index)
        return True

    def hover(self, sx: int, sy: int) -> bool:
        index = self.index_at(sx, sy)
        if index is not None and self._choosable(index) and index != self.highlight:
            self.highlight = index
            return True
        return False

    def _step(self, delta: int) -> None:
        count = len(self.items)
        index = self.highlight
        for _ in range(count):
            index = (index + delta) % count if index >= 0 or delta > 0 else count - 1
            if self._choosable(index):
                self.highlight = index
                self._scroll_to(index)
                return

    def on_key(self, event: KeyEvent) -> bool:
        """Navigation keys; the desktop closes the popup on escape."""
        if event.key == "down":
            self._step(1)
        elif event.key == "up":
            self._step(-1)
        elif event.key in ("home", "pageup"):
            self.highlight = -1
            self._step(1)
        elif event.key in ("end", "pagedown"):
            self.highlight = 0
            self._step(-1)
        elif event.key in ("enter", "space"):
            self.choose(self.highlight)
        else:
            return False
        return True

    def on_scroll(self, event: ScrollEvent) -> bool:
        limit = max(0, len(self.items) - self.max_rows)
        top = max(0, min(limit, self.top + event.dy * event.amount))
        changed, self.top = top != self.top, top
        return changed

    # --- drawing and accessibility ---------------------------------------------------------

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        draw.rectangle((r.x + 3, r.y + 3, r.right + 2, r.bottom + 2), fill=(60, 60, 60))
        draw.rectangle(r.box(), fill=Theme.popup_bg, outline=Theme.border)
        for index in self.visible_rows():
            item, row = self.items[index], self.row_rect(index)
            if item.separator:
                mid = row.y + ROW // 2
                draw.line([(row.x + 4, mid), (row.right - 4, mid)], fill=Theme.border)
                continue
            color = Theme.text if item.enabled else Theme.text_disabled
            if index == self.highlight:
                draw.rectangle(row.box(), fill=Theme.selection_strong)
                color = Theme.selected_text
            elif index == self.current:
                draw.rectangle(row.box(), fill=Theme.hover)
            ty = row.y + (ROW - LINE_HEIGHT) // 2
            draw_text(draw, row.x + 10, ty, item.label, color, max_width=row.width - 14)
            if item.shortcut:
                draw_text(draw, row.right - 8 - text_width(item.shortcut), ty, item.shortcut, color)
        if len(self.items) > self.max_rows:
            track = r.height - 8
            size = max(12, track * self.max_rows // len(self.items))
            top = r.y + 4 + (track - size) * self.top // max(1, len(self.items) - self.max_rows)
            draw.rectangle((r.right - 6, top, r.right - 3, top + size), fill=Theme.border)

    def item_states(self, index: int) -> list[str]:
        states = []
        if index == self.highlight:
            states.append("focused")
        if index == self.current:
            states.append("selected")
        if not self.items[index].enabled:
            states.append("disabled")
        return states

    def node(self, ctx: A11yContext, name: str = "") -> dict[str, Any] | None:
        bounds = ctx.screen_bounds(self.rect)
        if bounds is None:
            return None
        children = []
        for index in self.visible_rows():
            item = self.items[index]
            item_bounds = ctx.screen_bounds(self.row_rect(index))
            if item.separator or item_bounds is None:
                continue
            children.append({"role": self.item_role, "name": item.label, "bounds": item_bounds,
                             "states": self.item_states(index), "value": item.shortcut or None,
                             "children": []})  # fmt: skip
        return {"role": self.role, "name": name, "bounds": bounds, "states": ["expanded"], "value": None,
                "children": children}  # fmt: skip


class ListPopup(Popup):
    """A dropdown's options."""


class MenuPopup(Popup):
    """A menu's items; left and right ask the menu bar (if any) to open the neighbouring menu."""

    role = "menu"
    item_role = "menuitem"

    def __init__(self, *args: Any, on_side: Callable[[int], None] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.on_side = on_side
        if self.highlight < 0:
            self._step(1)

    def item_states(self, index: int) -> list[str]:
        return [s for s in super().item_states(index) if s != "selected"]

    def on_key(self, event: KeyEvent) -> bool:
        if event.key in ("left", "right") and self.on_side is not None:
            self.on_side(-1 if event.key == "left" else 1)
            return True
        return super().on_key(event)
