"""Image-size rules that model families share (Qwen-VL's ``smart_resize`` and its descendants)."""

from __future__ import annotations

import math

__all__ = ["smart_resize"]


def smart_resize(
    height: int, width: int, factor: int = 28, min_pixels: int = 56 * 56, max_pixels: int = 14 * 14 * 4 * 1280
) -> tuple[int, int]:
    """Qwen2-VL's rule: both sides a multiple of ``factor``, the area within ``[min_pixels, max_pixels]``,
    the aspect ratio kept as closely as those allow. Returns ``(height, width)`` like the original.

    The same arithmetic as ``qwen_vl_utils.smart_resize`` (and transformers' Qwen2-VL image
    processor), written out so that parsing a model's pixel coordinates never needs torch.
    """
    if height < 1 or width < 1:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    if max(height, width) / min(height, width) > 200:
        raise ValueError(f"aspect ratio must be under 200, got {max(height, width) / min(height, width):.1f}")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar
