"""Choosing from lists: the scrollable ``ListView`` and the ``Dropdown`` (a combo box)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import ImageDraw

from cua_bench.sim.events import KeyEvent, MouseEvent, ScrollEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.popups import ListPopup, PopupItem
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text, focus_ring
from cua_bench.sim.widget import A11yContext, Callback, Widget

__all__ = ["Dropdown", "ListView"]

ROW = 24


class ListView(Widget):
    """Rows of text; click selects, double click or enter activates, the wheel scrolls.

    ``icons`` (optional, one per item) draws a small folder or file glyph before the text.
    """

    role = "list"
    focusable = True

    def __init__(self, name: str = "", items: Sequence[str] = (), *, icons: Sequence[str] | None = None,
                 selected: int | None = None, on_select: Callback | None = None,
                 on_activate: Callback | None = None, **kw: Any) -> None:  # fmt: skip
        super().__init__(name, **kw)
        self.items = list(items)
        self.icons = list(icons) if icons is not None else None
        self.selected_index = selected
        self.on_select = on_select
        self.on_activate = on_activate
        self.on_context_menu: Callback | None = None
        self.activations: list[str] = []
        self._top = 0

    # --- state -----------------------------------------------------------------------------

    @property
    def selected(self) -> str | None:
        index = self.selected_index
        return self.items[index] if index is not None and 0 <= index < len(self.items) else None

    def set_items(self, items: Sequence[str], icons: Sequence[str] | None = None) -> None:
        """Replace the rows, keeping the selection on the same text when it is still there."""
        keep = self.selected
        self.items = list(items)
        self.icons = list(icons) if icons is not None else None
        self.selected_index = self.items.index(keep) if keep in self.items else None
        self._top = max(0, min(self._top, max(0, len(self.items) - self.visible_rows())))
        self.invalidate()

    @property
    def scroll_top(self) -> int:
        return self._top

    def visible_rows(self) -> int:
        return max(1, (self.rect.height - 4) // ROW)

    def row_rect(self, index: int) -> Rect:
        return Rect(self.rect.x + 2, self.rect.y + 2 + (index - self._top) * ROW, self.rect.width - 10, ROW)

    def index_at(self, y: int) -> int | None:
        index = self._top + (y - self.rect.y - 2) // ROW
        return index if 0 <= index < len(self.items) and index < self._top + self.visible_rows() else None

    def select(self, index: int | None) -> None:
        if index is not None:
            index = max(0, min(index, len(self.items) - 1)) if self.items else None
        if index is not None:
            self.scroll_to(index)
        if index != self.selected_index:
            self.selected_index = index
            if self.on_select:
                self.on_select(self)

    def scroll_to(self, index: int) -> None:
        rows = self.visible_rows()
        if index < self._top:
            self._top = index
        elif index >= self._top + rows:
            self._top = index - rows + 1
        self.invalidate()

    def activate(self) -> None:
        item = self.selected
        if item is not None:
            self.activations.append(item)
            if self.on_activate:
                self.on_activate(self)

    # --- input -----------------------------------------------------------------------------

    def on_mouse_down(self, event: MouseEvent) -> bool:
        if not self.enabled or event.button != "left":
            return False
        self.focus()
        index = self.index_at(event.y)
        if index is not None:
            self.select(index)
            if event.count >= 2:
                self.activate()
        return True

    def on_context(self, event: MouseEvent) -> bool:
        self.focus()
        index = self.index_at(event.y)
        if index is not None:
            self.select(index)
        if self.on_context_menu is not None:
            self.on_context_menu(self, event)
            return True
        return False

    def on_scroll(self, event: ScrollEvent) -> bool:
        limit = max(0, len(self.items) - self.visible_rows())
        top = max(0, min(limit, self._top + 3 * event.amount * event.dy))
        if top == self._top:
            return False
        self._top = top
        self.invalidate()
        return True

    def on_key(self, event: KeyEvent) -> bool:
        if not self.items or event.alt or event.ctrl:
            return False
        current = -1 if self.selected_index is None else self.selected_index
        moves = {"down": 1, "up": -1, "pagedown": self.visible_rows(), "pageup": -self.visible_rows()}
        if event.key in moves:
            self.select(max(0, current + moves[event.key]))
        elif event.key == "home":
            self.select(0)
        elif event.key == "end":
            self.select(len(self.items) - 1)
        elif event.key == "enter":
            self.activate()
        elif event.text and event.text.strip():
            # Type-ahead: the next item starting with the letter.
            count = len(self.items)
            for step in range(1, count + 1):
                index = (current + step) % count
                if self.items[index].lower().startswith(event.text.lower()):
                    self.select(index)
                    break
        else:
            return False
        return True

    # --- drawing and accessibility ---------------------------------------------------------

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, 6 * ROW + 4

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        draw.rectangle(r.box(), fill=Theme.field_bg, outline=Theme.field_border)
        rows = self.visible_rows()
        for index in range(self._top, min(len(self.items), self._top + rows)):
            row = self.row_rect(index)
            color = Theme.text if self.enabled else Theme.text_disabled
            if index == self.selected_index:
                draw.rectangle(row.box(), fill=Theme.selection_strong if self.has_focus else Theme.selection)
                color = Theme.selected_text if self.has_focus else Theme.text
            x = row.x + 6
            icon = self.icons[index] if self.icons and index < len(self.icons) else ""
            if icon:
                top = row.y + 6
                fill = Theme.folder if icon == "folder" else Theme.file
                draw.rectangle((x, top, x + 13, top + 11), fill=fill, outline=Theme.border)
                x += 20
            draw_text(draw, x, row.y + (ROW - LINE_HEIGHT) // 2, self.items[index], color, max_width=row.right - x)
        if len(self.items) > rows:
            track = r.height - 8
            size = max(16, track * rows // len(self.items))
            top = r.y + 4 + (track - size) * self._top // max(1, len(self.items) - rows)
            draw.rectangle((r.right - 7, top, r.right - 4, top + size), fill=Theme.border)
        if self.has_focus:
            focus_ring(draw, r)

    def node_value(self) -> Any:
        return self.selected

    def child_nodes(self, ctx: A11yContext) -> list[dict[str, Any]]:
        nodes = []
        for index in range(self._top, min(len(self.items), self._top + self.visible_rows())):
            bounds = ctx.bounds(self.row_rect(index), within=self.rect)
            if bounds is None:
                continue
            states = ["selected"] if index == self.selected_index else []
            icon = self.icons[index] if self.icons and index < len(self.icons) else None
            nodes.append({"role": "listitem", "name": self.items[index], "bounds": bounds, "states": states,
                          "value": icon or None, "children": []})  # fmt: skip
        return nodes


class Dropdown(Widget):
    """A combo box: shows the chosen option; click (or space, enter, alt+down) opens the list."""

    role = "combobox"
    focusable = True

    def __init__(self, name: str = "", options: Sequence[str] = (), selected: str | None = None,
                 on_change: Callback | None = None, **kw: Any) -> None:  # fmt: skip
        super().__init__(name, **kw)
        self.options = list(options)
        self.selected = selected
        self.on_change = on_change

    @property
    def expanded(self) -> bool:
        desktop = self.desktop
        return desktop is not None and desktop.popup is not None and desktop.popup.owner is self

    def select(self, option: str | None) -> None:
        if option != self.selected:
            self.selected = option
            if self.on_change:
                self.on_change(self)

    def open(self) -> None:
        desktop = self.desktop
        if desktop is None or not self.enabled or not self.options:
            return
        current = self.options.index(self.selected) if self.selected in self.options else -1

        def choose(index: int) -> None:
            desktop.close_popup()
            self.select(self.options[index])

        popup = ListPopup(self, [PopupItem(option) for option in self.options], choose,
                          anchor=self.screen_rect(), screen=(desktop.width, desktop.height), current=current,
                          min_width=self.rect.width, max_rows=8)  # fmt: skip
        desktop.open_popup(popup)

    def on_mouse_down(self, event: MouseEvent) -> bool:
        if not self.enabled or event.button != "left":
            return False
        self.focus()
        self.open()
        return True

    def on_key(self, event: KeyEvent) -> bool:
        if (event.key in ("space", "enter") and not event.mods) or (event.key == "down" and event.alt):
            self.open()
            return True
        if event.key in ("up", "down") and not event.mods and self.options:
            current = self.options.index(self.selected) if self.selected in self.options else -1
            step = 1 if event.key == "down" else -1
            self.select(self.options[max(0, min(len(self.options) - 1, current + step))])
            return True
        return False

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, 30

    def states(self) -> list[str]:
        return [*super().states(), "expanded" if self.expanded else "collapsed"]

    def node_value(self) -> Any:
        return self.selected

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        draw.rectangle(r.box(), fill=Theme.field_bg, outline=Theme.field_border)
        color = Theme.text if self.enabled else Theme.text_disabled
        draw_text(draw, r.x + 8, r.y + (r.height - LINE_HEIGHT) // 2, self.selected or "", color,
                  max_width=r.width - 36)  # fmt: skip
        ax, ay = r.right - 18, r.y + r.height // 2 - 2
        draw.polygon([(ax - 5, ay - 2), (ax + 5, ay - 2), (ax, ay + 4)], fill=Theme.text)
        draw.line([(r.right - 30, r.y + 4), (r.right - 30, r.bottom - 5)], fill=Theme.field_border)
        if self.has_focus:
            focus_ring(draw, r)
