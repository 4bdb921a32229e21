from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from cua_data.png import encode_png


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_any_frame_decodes_back_exactly(height: int, width: int, seed: int) -> None:
    frame = np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)
    decoded = Image.open(io.BytesIO(encode_png(frame)))
    assert decoded.mode == "RGB" and decoded.size == (width, height)
    assert np.array_equal(np.asarray(decoded), frame)


def test_a_flat_screen_compresses_and_bad_input_is_refused() -> None:
    screen = np.full((800, 1280, 3), 240, np.uint8)
    screen[100:140, 100:400] = (20, 90, 200)
    assert len(encode_png(screen)) < 20_000  # 3 MB of pixels
    with pytest.raises(ValueError, match="HxWx3 uint8"):
        encode_png(np.zeros((4, 4, 4), np.uint8))
    with pytest.raises(ValueError, match="HxWx3 uint8"):
        encode_png(np.zeros((4, 4, 3), np.float32))
