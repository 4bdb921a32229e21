"""What an agent sees of the screen, scaled where the screenshot is taken (the env server), so only
the pixels the agent asked for cross the wire: a 4K frame for an agent that observes 1280x800 used to
travel whole and be shrunk by the client."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from PIL import Image

__all__ = ["fit", "scale_png", "scale_rgb"]


def fit(size: tuple[int, int], bound: tuple[int, int] | None) -> tuple[int, int] | None:
    """The size ``size`` (width, height) scales down to inside ``bound``, aspect kept; None when it fits."""
    if bound is None:
        return None
    scale = min(bound[0] / size[0], bound[1] / size[1])
    if scale >= 1:
        return None
    return max(1, round(size[0] * scale)), max(1, round(size[1] * scale))


def scale_rgb(frame: np.ndarray[Any, Any], bound: tuple[int, int] | None) -> np.ndarray[Any, Any]:
    """An HxWx3 frame scaled down to fit ``bound`` (itself when it fits)."""
    target = fit((frame.shape[1], frame.shape[0]), bound)
    if target is None:
        return frame
    return np.asarray(Image.fromarray(frame).resize(target, Image.Resampling.BILINEAR))


def scale_png(data: bytes, bound: tuple[int, int] | None) -> bytes:
    """A PNG scaled down to fit ``bound`` (the same bytes when it fits)."""
    if bound is None:
        return data
    image = Image.open(io.BytesIO(data))
    target = fit(image.size, bound)
    if target is None:
        return data
    out = io.BytesIO()
    image.convert("RGB").resize(target, Image.Resampling.BILINEAR).save(out, format="PNG", compress_level=1)
    return out.getvalue()
