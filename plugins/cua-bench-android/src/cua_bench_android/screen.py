"""The device's screen: its size from ``wm size``, and ``screencap -p``'s PNG as the session's frame.

``wm size`` prints ``Physical size: WxH`` and, when a size was forced (``wm size WxH``), ``Override size:
WxH`` too; the override is the size apps lay out for, ``input`` takes coordinates in and the screen
shows, so it wins. Both are the screen in its natural orientation.
"""

from __future__ import annotations

import io
import re

import numpy as np
from PIL import Image

from cua_core import CuaError

__all__ = ["ScreenError", "decode_screen", "frame_of", "parse_wm_size", "png_at_size"]

_SIZE = re.compile(r"^\s*(Physical|Override) size:\s*(\d+)\s*x\s*(\d+)\s*$", re.MULTILINE)


class ScreenError(CuaError):
    """The device's screen could not be read, or not at the session's size."""


def parse_wm_size(text: str) -> tuple[int, int]:
    """(width, height) from ``wm size``'s output: the override size when there is one, else the physical one.

    Raises:
        ScreenError: the output names no size.
    """
    sizes = {kind: (int(width), int(height)) for kind, width, height in _SIZE.findall(text)}
    size = sizes.get("Override") or sizes.get("Physical")
    if size is None or 0 in size:
        raise ScreenError(f"`wm size` named no screen size: {text.strip()[:200]!r}")
    return size


def decode_screen(png: bytes, width: int, height: int) -> Image.Image:
    """``screencap -p``'s PNG as an RGB image of ``width`` x ``height``.

    A capture of the same shape at another resolution (a forced size is captured at the panel's) is scaled
    to the session's size; one whose sides are swapped means the screen turned since the session started.

    Raises:
        ScreenError: the bytes are not an image (adb's or screencap's error instead), or the screen turned.
    """
    try:
        image = Image.open(io.BytesIO(png))
        image.load()
    except (OSError, ValueError):
        said = png[:200].decode("utf-8", "replace").strip()
        raise ScreenError(f"`screencap -p` gave no PNG (it said {said!r})") from None
    shown = image.convert("RGB")
    if shown.size == (width, height):
        return shown
    w, h = shown.size
    if abs(w * height - h * width) > max(w, h):  # another shape: allow a pixel of rounding
        raise ScreenError(
            f"the device's screen is {w}x{h} now, and the session started at {width}x{height}: it turned (lock "
            "its rotation, `adb shell settings put system accelerometer_rotation 0`, and turn it back)"
        )
    return shown.resize((width, height))


def frame_of(png: bytes, width: int, height: int) -> np.ndarray[tuple[int, int, int], np.dtype[np.uint8]]:
    """The capture as the env server's frame: a (height, width, 3) uint8 array."""
    return np.asarray(decode_screen(png, width, height), dtype=np.uint8)


def png_at_size(png: bytes, width: int, height: int) -> bytes:
    """The capture as a PNG of ``width`` x ``height``: as the device made it when it is one, else scaled."""
    try:
        with Image.open(io.BytesIO(png)) as shown:
            fits = shown.format == "PNG" and shown.size == (width, height)
    except (OSError, ValueError):
        fits = False
    if fits:
        return png
    out = io.BytesIO()
    decode_screen(png, width, height).save(out, format="PNG", compress_level=1)
    return out.getvalue()
