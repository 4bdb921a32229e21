"""The phone's system chrome: the status bar at the top (clock, notification icons, battery) and the
navigation bar at the bottom (Back, Home, Recents), drawn over the windows and read as a11y nodes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import ImageDraw

from cua_bench.sim.geometry import Rect, normalised_bounds
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text, text_width

__all__ = ["NAV_BUTTONS", "NAV_HEIGHT", "STATUS_HEIGHT", "nav_nodes", "nav_rects", "paint_nav", "paint_status",
           "status_nodes"]  # fmt: skip

STATUS_HEIGHT = 24
NAV_HEIGHT = 48
# The nav bar's buttons, left to right, with the system button each one presses.
NAV_BUTTONS: tuple[tuple[str, str], ...] = (("Back", "back"), ("Home", "home"), ("Recents", "recent"))
_ICON = 14
_MAX_ICONS = 5


def _node(role: str, name: str, rect: Rect, size: tuple[int, int], value: Any = None,
          children: list[dict[str, Any]] | None = None) -> dict[str, Any]:  # fmt: skip
    return {"role": role, "name": name, "bounds": normalised_bounds(rect, *size), "states": [], "value": value,
            "children": children or []}  # fmt: skip


def _battery_rect(width: int) -> Rect:
    return Rect(width - 34, 6, 24, 12)


def _icon_rects(icons: int) -> list[Rect]:
    x = 8 + int(text_width("00:00")) + 10
    return [Rect(x + index * (_ICON + 4), (STATUS_HEIGHT - _ICON) // 2, _ICON, _ICON) for index in range(icons)]


def paint_status(draw: ImageDraw.ImageDraw, width: int, clock: str, battery: int, apps: Sequence[str]) -> None:
    """``apps``: the app of each pending notification, newest first (a lettered icon each)."""
    draw.rectangle((0, 0, width - 1, STATUS_HEIGHT - 1), fill=Theme.taskbar)
    draw_text(draw, 8, (STATUS_HEIGHT - LINE_HEIGHT) // 2, clock, Theme.title_text)
    for rect, app in zip(_icon_rects(min(len(apps), _MAX_ICONS)), apps, strict=False):
        draw.rounded_rectangle(rect.box(), radius=3, fill=Theme.title_active)
        letter = app[:1].upper()
        draw_text(draw, rect.x + (rect.width - text_width(letter, 11)) / 2, rect.y - 3, letter, Theme.title_text, 11)
    body = _battery_rect(width)
    draw.rectangle(body.box(), outline=Theme.title_text)
    draw.rectangle((body.right, body.y + 3, body.right + 2, body.bottom - 4), fill=Theme.title_text)
    level = (body.width - 4) * battery // 100
    if level > 0:
        draw.rectangle((body.x + 2, body.y + 2, body.x + 1 + level, body.bottom - 3), fill=Theme.title_text)
    label = f"{battery}%"
    draw_text(draw, body.x - 6 - text_width(label, 12), (STATUS_HEIGHT - LINE_HEIGHT) // 2, label,
              Theme.title_text, 12)  # fmt: skip


def status_nodes(size: tuple[int, int], clock: str, battery: int,
                 pending: Sequence[tuple[str, str]]) -> dict[str, Any]:  # fmt: skip
    """``pending``: (app, title) of each pending notification, newest first."""
    width = size[0]
    children = [_node("label", "Clock", Rect(8, 2, int(text_width(clock)), STATUS_HEIGHT - 4), size, clock)]
    for rect, (app, title) in zip(_icon_rects(min(len(pending), _MAX_ICONS)), pending, strict=False):
        children.append(_node("image", f"Notification: {title}", rect, size, app))
    children.append(_node("label", "Battery", _battery_rect(width), size, f"{battery}%"))
    return _node("statusbar", "Status bar", Rect(0, 0, width, STATUS_HEIGHT), size, None, children)


def nav_rects(width: int, height: int) -> list[tuple[str, str, Rect]]:
    """Each nav bar button's name, system button and rectangle (a third of the bar each)."""
    top, third = height - NAV_HEIGHT, width // len(NAV_BUTTONS)
    return [(name, button, Rect(index * third, top, third if index < 2 else width - 2 * third, NAV_HEIGHT))
            for index, (name, button) in enumerate(NAV_BUTTONS)]  # fmt: skip


def paint_nav(draw: ImageDraw.ImageDraw, width: int, height: int) -> None:
    draw.rectangle((0, height - NAV_HEIGHT, width - 1, height - 1), fill=Theme.taskbar)
    for _, button, rect in nav_rects(width, height):
        cx, cy, r = rect.x + rect.width // 2, rect.y + rect.height // 2, 8
        if button == "back":
            draw.polygon([(cx + r, cy - r), (cx + r, cy + r), (cx - r, cy)], outline=Theme.title_text)
        elif button == "home":
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=Theme.title_text, width=2)
        else:
            draw.rectangle((cx - r + 1, cy - r + 1, cx + r - 1, cy + r - 1), outline=Theme.title_text, width=2)


def nav_nodes(size: tuple[int, int]) -> dict[str, Any]:
    buttons = [_node("button", name, rect, size, button) for name, button, rect in nav_rects(*size)]
    bar = Rect(0, size[1] - NAV_HEIGHT, size[0], NAV_HEIGHT)
    return _node("navbar", "Navigation bar", bar, size, None, buttons)
