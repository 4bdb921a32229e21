"""The size of the screenshot Claude is sent, which is also the frame of the pixel coordinates it writes.

Two rules, applied in order:

1. The computer-use demo's (anthropics/anthropic-quickstarts
   ``computer-use-demo/computer_use_demo/tools/computer.py``, ``MAX_SCALING_TARGETS`` and
   ``scale_coordinates``): a screen whose aspect ratio is within 0.02 of XGA 1024x768 (4:3),
   WXGA 1280x800 (16:10) or FWXGA 1366x768 (~16:9), and wider than that target, is scaled to
   exactly the target (so 1920x1080 -> 1366x768, 2560x1600 -> 1280x800). Only the first target
   whose ratio matches is tried, as in the demo.
2. The API's image limit (Claude vision and computer-use docs: the long edge at most 1568 px and
   about 1.15 megapixels): anything larger is scaled by
   ``min(1, 1568 / long_edge, sqrt(1_150_000 / (w * h)))`` and each side truncated, the docs'
   own ``get_scale_factor`` arithmetic. Without it the API would shrink the image itself and
   Claude's coordinates would be in a frame the caller never saw.

``scaling="api"`` skips rule 1, ``"none"`` skips both (the caller vouches for the size).
"""

from __future__ import annotations

import math

__all__ = ["MAX_LONG_EDGE", "MAX_PIXELS", "MAX_SCALING_TARGETS", "SCALINGS", "scaled_size"]

MAX_SCALING_TARGETS: dict[str, tuple[int, int]] = {"XGA": (1024, 768), "WXGA": (1280, 800), "FWXGA": (1366, 768)}
MAX_LONG_EDGE = 1568
MAX_PIXELS = 1_150_000
SCALINGS = ("demo", "api", "none")


def demo_target(width: int, height: int) -> tuple[int, int] | None:
    ratio = width / height
    for target_width, target_height in MAX_SCALING_TARGETS.values():
        # The demo allows some error in the aspect ratio: not every "16:9" screen is exactly 16:9.
        if abs(target_width / target_height - ratio) < 0.02:
            return (target_width, target_height) if target_width < width else None
    return None


def api_limit(width: int, height: int, max_long_edge: int, max_pixels: int) -> tuple[int, int]:
    scale = min(1.0, max_long_edge / max(width, height), math.sqrt(max_pixels / (width * height)))
    if scale >= 1.0:
        return width, height
    return max(1, int(width * scale)), max(1, int(height * scale))


def scaled_size(
    width: int, height: int, scaling: str = "demo", max_long_edge: int = MAX_LONG_EDGE, max_pixels: int = MAX_PIXELS
) -> tuple[int, int]:
    """``(width, height)`` of the screenshot Claude sees for a ``width`` x ``height`` screen."""
    if width < 1 or height < 1:
        raise ValueError(f"screen size must be positive, got {width}x{height}")
    if scaling == "none":
        return width, height
    if scaling == "demo":
        width, height = demo_target(width, height) or (width, height)
    return api_limit(width, height, max_long_edge, max_pixels)
