"""Menu bars, their menus and items (with keyboard shortcuts), and context menus.

A menu bar sits at the top of a window. Click a title to open its menu; while one is open,
hovering another title or pressing left/right switches; alt+<first letter> or F10 opens one
from the keyboard; an item's shortcut (``ctrl+s``) works whenever its window has focus.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PIL import ImageDraw

from cua_bench.sim.events import KeyEvent, MouseEvent, parse_shortcut
from cua_bench.sim.geometry import Rect
from cua_bench.sim.popups import SEPARATOR, MenuPopup, PopupItem
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text, text_width
from cua_bench.sim.widget import A11yContext, Callback, Widget

if TYPE_CHECKING:
    from cua_bench.sim.desktop import SimDesktop

__all__ = ["Menu", "MenuBar", "MenuItem", "open_context_menu"]

BAR_HEIGHT = 26


class MenuItem:
    """A command in a menu. ``on_select`` gets the item; ``shortcut`` is a chord like ``"ctrl+s"``."""

    def __init__(self, label: str, on_select: Callback | None = None, *, shortcut: str = "",
                 enabled: bool = True) -> None:  # fmt: skip
        self.label = label
        self.on_select = on_select
        self.shortcut = shortcut
        self.chord = parse_shortcut(shortcut) if shortcut else None
        self.enabled = enabled
        self.selections = 0

    @classmethod
    def separator(cls) -> MenuItem:
        return cls(SEPARATOR, enabled=False)

    def run(self) -> None:
        if self.enabled and self.label != SEPARATOR:
            self.selections += 1
            if self.on_select:
                self.on_select(self)

    def popup_item(self) -> PopupItem:
        shown = "+".join(part.capitalize() if len(part) > 1 else part.upper() for part in self.shortcut.split("+"))
        return PopupItem(self.label, shown if self.shortcut else "", self.enabled)


class Menu:
    """A titled list of items."""

    def __init__(self, title: str, items: Sequence[MenuItem]) -> None:
        self.title = title
        self.items = list(items)


def open_context_menu(desktop: SimDesktop, owner: Widget, items: Sequence[MenuItem], sx: int, sy: int) -> None:
    """A menu at the pointer (right click); choosing an item closes it and runs the item."""

    def choose(index: int) -> None:
        desktop.close_popup()
        items[index].run()

    anchor = Rect(sx, sy, 1, 0)
    popup = MenuPopup(owner, [item.popup_item() for item in items], choose, anchor=anchor,
                      screen=(desktop.width, desktop.height))  # fmt: skip
    desktop.open_popup(popup)


class MenuBar(Widget):
    """The window's menu bar; the window places it at the top of its client area."""

    role = "menubar"

    def __init__(self, menus: Sequence[Menu] = (), **kw: Any) -> None:
        super().__init__("", **kw)
        self.menus = list(menus)
        self.open_index: int | None = None

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, BAR_HEIGHT

    def title_rects(self) -> list[Rect]:
        rects, x = [], self.rect.x + 4
        for menu in self.menus:
            width = int(text_width(menu.title)) + 20
            rects.append(Rect(x, self.rect.y, width, self.rect.height))
            x += width
        return rects

    def _index_at(self, x: int, y: int) -> int | None:
        for index, rect in enumerate(self.title_rects()):
            if rect.contains(x, y):
                return index
        return None

    @property
    def popup_open(self) -> bool:
        desktop = self.desktop
        return desktop is not None and desktop.popup is not None and desktop.popup.owner is self

    def open_menu(self, index: int) -> None:
        desktop = self.desktop
        if desktop is None or not self.menus:
            return
        index %= len(self.menus)
        menu = self.menus[index]

        def choose(item_index: int) -> None:
            desktop.close_popup()
            menu.items[item_index].run()

        def side(step: int) -> None:
            self.open_menu(index + step)

        anchor = self.title_rects()[index].moved(*self._origin())
        popup = MenuPopup(self, [item.popup_item() for item in menu.items], choose, anchor=anchor,
                          screen=(desktop.width, desktop.height), on_side=side)  # fmt: skip

        def closed() -> None:
            self.open_index = None

        desktop.open_popup(popup)
        popup.on_close = closed
        self.open_index = index

    def _origin(self) -> tuple[int, int]:
        window = self.window
        return (0, 0) if window is None else (window.rect.x, window.rect.y)

    def on_mouse_down(self, event: MouseEvent) -> bool:
        index = self._index_at(event.x, event.y)
        if index is None or event.button != "left":
            return False
        self.open_menu(index)
        return True

    def on_hover(self, event: MouseEvent) -> bool:
        index = self._index_at(event.x, event.y)
        if index is not None and self.popup_open and index != self.open_index:
            self.open_menu(index)
            return True
        return False

    def shortcut(self, event: KeyEvent) -> bool:
        """Run the enabled item whose shortcut is this chord."""
        for menu in self.menus:
            for item in menu.items:
                if item.chord is not None and item.chord == event.chord and item.enabled:
                    item.run()
                    return True
        return False

    def mnemonic(self, event: KeyEvent) -> bool:
        """alt+<letter> opens the menu whose title starts with it; F10 opens the first."""
        if event.key == "f10" and not event.mods:
            self.open_menu(0)
            return True
        if event.alt and not event.ctrl and len(event.key) == 1:
            for index, menu in enumerate(self.menus):
                if menu.title[:1].lower() == event.key:
                    self.open_menu(index)
                    return True
        return False

    def find_item(self, label: str) -> MenuItem:
        for menu in self.menus:
            for item in menu.items:
                if item.label == label:
                    return item
        raise LookupError(f"no menu item {label!r}")

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        draw.rectangle(r.box(), fill=(232, 232, 236))
        draw.line([(r.x, r.bottom - 1), (r.right - 1, r.bottom - 1)], fill=(200, 200, 205))
        for index, (menu, rect) in enumerate(zip(self.menus, self.title_rects(), strict=True)):
            color = Theme.text
            if index == self.open_index:
                draw.rectangle(rect.box(), fill=Theme.selection_strong)
                color = Theme.selected_text
            draw_text(draw, rect.x + 10, rect.y + (rect.height - LINE_HEIGHT) // 2, menu.title, color)

    def popup_nodes(self, ctx: A11yContext) -> list[dict[str, Any]]:
        return []  # the open menu's items are children of its menu node

    def child_nodes(self, ctx: A11yContext) -> list[dict[str, Any]]:
        desktop = self.desktop
        nodes = []
        for index, (menu, rect) in enumerate(zip(self.menus, self.title_rects(), strict=True)):
            bounds = ctx.bounds(rect)
            if bounds is None:
                continue
            expanded = index == self.open_index and self.popup_open
            children: list[dict[str, Any]] = []
            if expanded and desktop is not None and desktop.popup is not None:
                popup_node = desktop.popup.node(ctx, menu.title)
                children = [] if popup_node is None else popup_node["children"]
            nodes.append({"role": "menu", "name": menu.title, "bounds": bounds,
                          "states": ["expanded" if expanded else "collapsed"], "value": None,
                          "children": children})  # fmt: skip
        return nodes
