"""Normalised screen coordinates and their conversion to and from pixels.

Actions carry positions in ``[0, 1000]`` on each axis so that one trajectory is valid at any
resolution; only a backend, which knows its screen, turns them into pixels.

Pixel convention: the normalised range is cut into ``size`` equal cells, one per pixel.
``to_pixels`` returns the cell a position falls in, ``min(size - 1, floor(v * size / 1000))``;
``from_pixels`` returns the centre of the pixel's cell, ``(px + 0.5) * 1000 / size``. Using cell
centres makes pixel -> normalised -> pixel the identity for every pixel at every resolution, and
``1000`` (the far edge) still lands on the last pixel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from cua_core.actions.checks import check_number, describe, is_integer, is_real
from cua_core.errors import ActionError

__all__ = ["COORD_MAX", "Point", "from_pixels", "point_from", "to_pixels"]

COORD_MAX = 1000
"""The far edge of the normalised range on both axes (the near edge is 0)."""


@dataclass(frozen=True, slots=True)
class Point:
    """A position normalised to ``[0, 1000]`` on each axis; floats keep sub-pixel precision."""

    x: float
    y: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", check_number(self.x, "point.x", 0, COORD_MAX))
        object.__setattr__(self, "y", check_number(self.y, "point.y", 0, COORD_MAX))


def point_from(value: object, label: str) -> Point:
    """Read a point from its plain form ``[x, y]`` (or a ``Point``), naming ``label`` on failure."""
    if isinstance(value, Point):
        return value
    if isinstance(value, Sequence) and not isinstance(value, str | bytes) and len(value) == 2:
        x = check_number(value[0], f"{label}.x", 0, COORD_MAX)
        y = check_number(value[1], f"{label}.y", 0, COORD_MAX)
        return Point(x, y)
    raise ActionError(f"{label}: {describe(value)} is not a point [x, y] with x, y in [0, 1000]")


def _check_size(width: object, height: object) -> tuple[int, int]:
    sizes: list[int] = []
    for name, size in (("width", width), ("height", height)):
        if not is_integer(size) or int(size) < 1:
            raise ActionError(f"screen {name}: {describe(size)} is not a positive whole number")
        sizes.append(int(size))
    return sizes[0], sizes[1]


def _to_pixel(value: float, size: int) -> int:
    return min(size - 1, math.floor(value * size / COORD_MAX))


def to_pixels(point: Point, width: int, height: int) -> tuple[int, int]:
    """The pixel a normalised point falls in on a ``width`` x ``height`` screen."""
    width, height = _check_size(width, height)
    return _to_pixel(point.x, width), _to_pixel(point.y, height)


def _from_pixel(value: object, size: int, axis: str) -> float:
    if is_integer(value):
        index = int(value)
        inside = 0 <= index < size
    elif is_real(value):
        number = float(value)
        # A fractional position lies in the pixel floor(value); the far edge itself is off screen.
        inside = math.isfinite(number) and 0 <= number < size
        index = math.floor(number) if inside else -1
    else:
        raise ActionError(f"pixel {axis}: {describe(value)} is not a number")
    if not inside:
        raise ActionError(f"pixel {axis}: {describe(value)} is outside the screen [0, {size - 1}]")
    return (index + 0.5) * COORD_MAX / size


def from_pixels(x: float, y: float, width: int, height: int) -> Point:
    """The normalised centre of pixel ``(x, y)`` on a ``width`` x ``height`` screen."""
    width, height = _check_size(width, height)
    return Point(_from_pixel(x, width, "x"), _from_pixel(y, height, "y"))
