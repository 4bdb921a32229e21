"""A screenshot in the terminal: drawn with half blocks where the terminal has true colour, else a
placeholder that says what would be there (its size), never a garbled picture."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image
from rich.style import Style
from rich.text import Text

__all__ = ["placeholder", "render_png"]


def placeholder(width: int, height: int, why: str = "") -> Text:
    text = Text(f"screenshot {width}×{height}", style="bold")
    if why:
        text.append(f"\n{why}", style="dim")
    return text


def render_png(png: bytes, columns: int, rows: int) -> Text:
    """``png`` scaled into ``columns`` × ``rows`` cells, two pixels a cell (upper and lower half block)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    columns, rows = max(1, columns), max(1, rows)
    scale = min(columns / image.width, 2 * rows / image.height)
    width, height = max(1, int(image.width * scale)), max(2, int(image.height * scale) // 2 * 2)
    pixels = image.resize((width, height), Image.Resampling.BILINEAR).load()
    assert pixels is not None
    text = Text(no_wrap=True, overflow="crop")
    for y in range(0, height, 2):
        for x in range(width):
            text.append("▀", Style(color=_rgb(pixels[x, y]), bgcolor=_rgb(pixels[x, y + 1])))
        if y + 2 < height:
            text.append("\n")
    return text


def _rgb(pixel: Any) -> str:
    """An RGB image's pixel is a 3-tuple of ints."""
    return f"rgb({pixel[0]},{pixel[1]},{pixel[2]})"
