"""Fonts, colours and the few drawing helpers every widget shares.

One scalable font (Pillow's built-in, at a few sizes) so caret positions come from the same
``getlength`` the drawing uses; nothing depends on time, so a frame is a pure function of state.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from cua_bench.sim.geometry import Rect

__all__ = [
    "FONT_SIZE",
    "LINE_HEIGHT",
    "Font",
    "Theme",
    "draw_text",
    "fit_text",
    "focus_ring",
    "font",
    "text_index_at",
    "text_width",
]

FONT_SIZE = 14
LINE_HEIGHT = 20

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=8)
def font(size: int = FONT_SIZE) -> Font:
    """Pillow's built-in font: scalable where Pillow has FreeType, the bitmap one otherwise."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # pragma: no cover - Pillow without FreeType
        return ImageFont.load_default()


@lru_cache(maxsize=4096)
def _width(text: str, size: int) -> float:
    return float(font(size).getlength(text))


def text_width(text: str, size: int = FONT_SIZE) -> float:
    """The advance width of ``text`` in pixels; cached, as carets and clipping ask often."""
    return _width(text, size) if len(text) < 256 else float(font(size).getlength(text))


def text_index_at(text: str, x: float, size: int = FONT_SIZE) -> int:
    """The character boundary nearest to ``x`` pixels from the start of ``text``."""
    low, high = 0, len(text)
    while low < high:  # first boundary whose position is >= x
        mid = (low + high) // 2
        if text_width(text[:mid], size) < x:
            low = mid + 1
        else:
            high = mid
    if low > 0 and x - text_width(text[: low - 1], size) < text_width(text[:low], size) - x:
        return low - 1
    return low


def fit_text(text: str, start: float, width: float, size: int = FONT_SIZE) -> tuple[int, int]:
    """The slice ``[i, j)`` of ``text`` whose glyphs lie within ``[start, start + width]`` pixels."""
    low, high = 0, len(text)
    while low < high:
        mid = (low + high) // 2
        if text_width(text[:mid], size) < start:
            low = mid + 1
        else:
            high = mid
    first = low
    low, high = first, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        if text_width(text[:mid], size) <= start + width:
            low = mid
        else:
            high = mid - 1
    return first, low


@lru_cache(maxsize=8192)
def _glyphs(text: str, size: int) -> tuple[Image.Image, int, int] | None:
    """``text`` rendered once as an anti-aliased mask; drawing text is then one blit, which makes
    repainting a window of labels several times cheaper than rasterising glyphs every frame."""
    face = font(size)
    left, top, right, bottom = (int(v) for v in face.getbbox(text))
    if right <= left or bottom <= top:
        return None
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=face)
    return mask, left, top


def draw_text(
    draw: ImageDraw.ImageDraw,
    x: float,
    y: float,
    text: str,
    fill: tuple[int, int, int],
    size: int = FONT_SIZE,
    max_width: float | None = None,
) -> None:
    """Text with its line box at ``y``; cut (with an ellipsis) to ``max_width`` when given."""
    if not text:
        return
    if max_width is not None and text_width(text, size) > max_width:
        _, end = fit_text(text, 0, max(0.0, max_width - text_width("…", size)), size)
        text = text[:end] + "…"
    glyphs = _glyphs(text, size)
    if glyphs is not None:
        mask, left, top = glyphs
        draw.bitmap((round(x) + left, round(y) + (LINE_HEIGHT - size) // 2 - 1 + top), mask, fill=fill)


class Theme:
    """The palette: flat colours that survive JPEG-ish screenshot compression and small models."""

    desktop = (46, 84, 122)
    window_bg = (240, 240, 240)
    border = (120, 120, 120)
    title_active = (45, 110, 200)
    title_inactive = (150, 155, 165)
    title_text = (255, 255, 255)
    text = (20, 20, 20)
    text_disabled = (150, 150, 150)
    field_bg = (255, 255, 255)
    field_border = (130, 130, 130)
    focus = (30, 120, 230)
    selection = (170, 205, 250)
    selection_strong = (45, 110, 200)
    selected_text = (255, 255, 255)
    button = (225, 225, 228)
    button_default = (205, 222, 245)
    button_pressed = (190, 190, 195)
    placeholder = (150, 150, 150)
    popup_bg = (252, 252, 252)
    hover = (210, 228, 250)
    taskbar = (30, 30, 36)
    taskbar_button = (70, 72, 82)
    taskbar_active = (45, 110, 200)
    drop_bg = (232, 240, 232)
    drop_border = (90, 150, 90)
    chip = (255, 236, 170)
    folder = (235, 190, 70)
    file = (200, 210, 225)
    close_hover = (200, 60, 60)


def focus_ring(draw: ImageDraw.ImageDraw, rect: Rect) -> None:
    draw.rectangle((rect.x - 2, rect.y - 2, rect.right + 1, rect.bottom + 1), outline=Theme.focus, width=2)
