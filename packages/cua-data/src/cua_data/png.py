"""A fast lossless PNG writer for screenshots: what agents send and recordings keep, every step.

PIL's encoder at ``compress_level=1`` spends ~12 ms on a 1280x800 desktop frame; most of it is
PNG's per-row filter search. Screens are flat colour and text, which deflate compresses well
without filtering: filter "None" on every row and zlib level 1 gives ~7 ms and files as small
(measured on sim frames: 22.0 KB against PIL's 21.4 KB). The output is a standard 8-bit RGB PNG
that any decoder reads back exactly.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import numpy as np

__all__ = ["encode_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(rgb: Any) -> bytes:
    """An HxWx3 uint8 array (or anything ``np.asarray`` makes one of) as PNG bytes."""
    array = np.asarray(rgb)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ValueError(f"encode_png needs an HxWx3 uint8 array, got shape {array.shape} of {array.dtype}")
    height, width, _ = array.shape
    rows = np.empty((height, width * 3 + 1), np.uint8)
    rows[:, 0] = 0  # filter type None
    rows[:, 1:] = array.reshape(height, width * 3)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.data, 1)) + _chunk(b"IEND", b"")
