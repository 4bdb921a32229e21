"""OSWorld's ``check_structure_sim_with_threshold``, which desktop-env 1.0.2 does not have yet.

OSWorld passes an image the agent made when its structural similarity (SSIM) with the expected one
reaches ``ssim_threshold``: the agent's image resized (Lanczos) to the expected one's size where
they differ, both in RGB, scored by scikit-image's ``structural_similarity`` (7x7 windows, fewer on
a smaller image, the mean over the three channels). scikit-image and scipy come only with the
``osworld`` extra, so the index is computed here with numpy exactly as scikit-image computes it for
these arguments; the tests hold it to scikit-image.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

__all__ = ["check_structure_sim_with_threshold", "structural_similarity"]

# scikit-image's constants for 8-bit images: the value range and the stabilisers K1, K2.
_RANGE = 255.0
_C1 = (0.01 * _RANGE) ** 2
_C2 = (0.03 * _RANGE) ** 2


def _window_means(values: np.ndarray, size: int) -> np.ndarray:
    """The mean of every ``size`` x ``size`` window wholly inside ``values`` (what scikit-image keeps
    of its uniform filter once it drops the border the filter had to pad)."""
    sums = np.cumsum(np.pad(values, ((1, 0), (0, 0))), axis=0)
    rows = sums[size:] - sums[:-size]
    sums = np.cumsum(np.pad(rows, ((0, 0), (1, 0))), axis=1)
    means: np.ndarray = (sums[:, size:] - sums[:, :-size]) / (size * size)
    return means


def _channel_similarity(first: np.ndarray, second: np.ndarray, size: int) -> float:
    count = size * size
    sample = count / (count - 1)  # scikit-image's sample covariance (a 1x1 window divides by zero)
    mean_x, mean_y = _window_means(first, size), _window_means(second, size)
    var_x = sample * (_window_means(first * first, size) - mean_x * mean_x)
    var_y = sample * (_window_means(second * second, size) - mean_y * mean_y)
    cov = sample * (_window_means(first * second, size) - mean_x * mean_y)
    index = ((2 * mean_x * mean_y + _C1) * (2 * cov + _C2)) / (
        (mean_x * mean_x + mean_y * mean_y + _C1) * (var_x + var_y + _C2)
    )
    return float(index.mean(dtype=np.float64))


def structural_similarity(first: np.ndarray, second: np.ndarray, win_size: int = 7) -> float:
    """scikit-image's ``structural_similarity(first, second, win_size=win_size, channel_axis=2)`` for two
    8-bit height x width x channels arrays of one shape (its other defaults: a uniform window, sample
    covariance, the 0-255 range)."""
    if first.shape != second.shape or first.ndim != 3:
        raise ValueError(f"two arrays of one height x width x channels shape, not {first.shape} and {second.shape}")
    if win_size % 2 != 1 or win_size > min(first.shape[:2]):
        raise ValueError(f"win_size {win_size} must be odd and fit the image ({first.shape[1]}x{first.shape[0]})")
    a, b = first.astype(np.float64), second.astype(np.float64)
    channels = [_channel_similarity(a[:, :, c], b[:, :, c], win_size) for c in range(a.shape[2])]
    return float(np.mean(channels))


def check_structure_sim_with_threshold(src_path: str | None, tgt_path: str | None, **options: Any) -> float:
    """1 when the image at ``src_path`` is structurally like the one at ``tgt_path`` (SSIM at least
    ``ssim_threshold``, 0.85 by default), else 0; 0 for a missing path or a file that is no image."""
    if src_path is None or tgt_path is None:
        return 0.0
    threshold = options.get("ssim_threshold", 0.85)
    try:
        with Image.open(src_path) as source, Image.open(tgt_path) as target:
            src: Image.Image = source
            if src.size != target.size:
                src = src.resize(target.size, Image.Resampling.LANCZOS)
            first = np.array(src.convert("RGB"))
            second = np.array(target.convert("RGB"))
    except Exception:  # OSWorld's: an image that is not there, or is none, scores 0
        return 0.0
    smallest = min(first.shape[:2])
    win_size = 7 if smallest >= 7 else (smallest if smallest % 2 else smallest - 1)
    if win_size < 3:  # OSWorld's SSIM fails on so small an image (a 1x1 window), and that scores 0
        return 0.0
    return 1.0 if structural_similarity(first, second, win_size) >= threshold else 0.0
