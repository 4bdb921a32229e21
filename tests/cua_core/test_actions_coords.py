"""Pixel conversion: normalised [0, 1000] <-> pixels at any resolution."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cua_core.actions import (
    Click,
    Drag,
    Point,
    Screenshot,
    action_to_pixels,
    from_pixels,
    to_pixels,
)
from cua_core.errors import ActionError

RESOLUTIONS = [(1, 1), (1280, 800), (1920, 1080), (3840, 2160), (1080, 2400), (7, 3)]


@pytest.mark.parametrize(("width", "height"), RESOLUTIONS)
def test_edges_map_to_first_and_last_pixel(width: int, height: int) -> None:
    assert to_pixels(Point(0, 0), width, height) == (0, 0)
    assert to_pixels(Point(1000, 1000), width, height) == (width - 1, height - 1)


@pytest.mark.parametrize(
    ("point", "size", "pixel"),
    [
        (Point(500, 500), (1280, 800), (640, 400)),
        (Point(500, 500), (3840, 2160), (1920, 1080)),
        (Point(999.99, 0.01), (1280, 800), (1279, 0)),
        (Point(250, 750), (1920, 1080), (480, 810)),
        (Point(500, 500), (1, 1), (0, 0)),
    ],
)
def test_to_pixels_known_values(point: Point, size: tuple[int, int], pixel: tuple[int, int]) -> None:
    assert to_pixels(point, *size) == pixel


def test_from_pixels_returns_the_pixel_centre() -> None:
    assert from_pixels(0, 0, 1, 1) == Point(500, 500)
    assert from_pixels(0, 0, 1000, 1000) == Point(0.5, 0.5)
    assert from_pixels(639, 399, 1280, 800) == Point(499.609375, 499.375)


@pytest.mark.parametrize(("width", "height"), RESOLUTIONS)
def test_every_pixel_round_trips_at_small_and_common_sizes(width: int, height: int) -> None:
    for px in range(0, width, max(1, width // 97)):
        py = px * height // width
        assert to_pixels(from_pixels(px, py, width, height), width, height) == (px, py)


@given(size=st.integers(1, 4000), data=st.data())
def test_pixel_to_normalised_to_pixel_is_identity(size: int, data: st.DataObject) -> None:
    pixel = data.draw(st.integers(0, size - 1))
    other = data.draw(st.integers(1, 4000))
    assert to_pixels(from_pixels(pixel, 0, size, other), size, other) == (pixel, 0)
    assert to_pixels(from_pixels(0, pixel, other, size), other, size) == (0, pixel)


def test_every_pixel_of_every_width_up_to_4000_round_trips() -> None:
    # The exhaustive version of the property above, for one axis (8 million conversions is too
    # slow, so every width with its first, middle and last pixel plus a stride through it).
    for size in range(1, 4001):
        for pixel in {0, size // 2, size - 1, *range(0, size, 397)}:
            assert to_pixels(from_pixels(pixel, 0, size, 1), size, 1)[0] == pixel


@given(
    x=st.floats(0, 1000),
    y=st.floats(0, 1000),
    width=st.integers(1, 4000),
    height=st.integers(1, 4000),
)
def test_to_pixels_stays_on_screen(x: float, y: float, width: int, height: int) -> None:
    px, py = to_pixels(Point(x, y), width, height)
    assert 0 <= px < width
    assert 0 <= py < height


def test_fractional_pixels_fall_in_their_pixel() -> None:
    assert from_pixels(10.7, 3.2, 100, 100) == from_pixels(10, 3, 100, 100)


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: to_pixels(Point(1, 1), 0, 10), "screen width: 0"),
        (lambda: to_pixels(Point(1, 1), 10, -5), "screen height: -5"),
        (lambda: to_pixels(Point(1, 1), 10.0, 10), "screen width: 10.0"),  # type: ignore[arg-type]
        (lambda: to_pixels(Point(1, 1), True, 10), "screen width: True"),
        (lambda: from_pixels(1280, 0, 1280, 800), "pixel x: 1280 is outside the screen [0, 1279]"),
        (lambda: from_pixels(0, -1, 1280, 800), "pixel y: -1 is outside the screen [0, 799]"),
        (lambda: from_pixels(float("nan"), 0, 10, 10), "pixel x: nan"),
        (lambda: from_pixels("3", 0, 10, 10), "pixel x: '3' is not a number"),  # type: ignore[arg-type]
        (lambda: from_pixels(0, 0, 10, 0), "screen height: 0"),
    ],
)
def test_bad_sizes_and_pixels_are_rejected(call: object, fragment: str) -> None:
    assert callable(call)
    with pytest.raises(ActionError) as raised:
        call()
    assert fragment in str(raised.value)


def test_action_to_pixels_converts_every_point() -> None:
    assert action_to_pixels(Click(Point(500, 500), "right"), 1280, 800) == {
        "kind": "click",
        "coordinate": [640, 400],
        "button": "right",
        "clicks": 1,
    }
    drag = action_to_pixels(Drag(None, Point(1000, 0)), 1920, 1080)
    assert drag == {"kind": "drag", "start": None, "end": [1919, 0], "button": "left"}
    assert action_to_pixels(Screenshot(), 10, 10) == {"kind": "screenshot"}
