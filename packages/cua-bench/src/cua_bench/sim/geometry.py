"""Pixel rectangles, and the conversion of a pixel rectangle to a normalised accessibility box."""

from __future__ import annotations

from dataclasses import dataclass

from cua_core import COORD_MAX

__all__ = ["Rect", "normalised_bounds"]


@dataclass(slots=True)
class Rect:
    """A half-open pixel rectangle ``[x, x + width) x [y, y + height)``."""

    x: int = 0
    y: int = 0
    width: int = 0
    height: int = 0

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height

    def contains(self, px: int, py: int) -> bool:
        return self.x <= px < self.right and self.y <= py < self.bottom

    def moved(self, dx: int, dy: int) -> Rect:
        return Rect(self.x + dx, self.y + dy, self.width, self.height)

    def intersect(self, other: Rect) -> Rect | None:
        left, top = max(self.x, other.x), max(self.y, other.y)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return None
        return Rect(left, top, right - left, bottom - top)

    def box(self) -> tuple[int, int, int, int]:
        """The inclusive corner box Pillow's drawing calls take."""
        return (self.x, self.y, self.right - 1, self.bottom - 1)


def normalised_bounds(rect: Rect, width: int, height: int) -> list[float]:
    """``[l, t, r, b]`` in action coordinates: the centre of the box falls in a pixel of ``rect``.

    ``to_pixels`` maps a normalised value to ``floor(v * size / 1000)``; the centre of these bounds
    is the pixel centre line ``(x + right) / 2`` of the rectangle, which floors inside it.
    """
    return [
        round(rect.x * COORD_MAX / width, 3),
        round(rect.y * COORD_MAX / height, 3),
        round(rect.right * COORD_MAX / width, 3),
        round(rect.bottom * COORD_MAX / height, 3),
    ]
