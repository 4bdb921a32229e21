"""``_gimp``'s pure parts: seeds drawn and written as PNGs, exported images read back whole with
Pillow (a clear reason, never a crash, for what is not the asked format), the pixel comparisons and
their tolerances, GIMP's grayscale and JPEG quality as the evaluators expect them, and its titles."""

from __future__ import annotations

import io
import itertools
import random

import numpy as np
import pytest
from PIL import Image

from cua_bench_tasks_desktop._gimp import (
    ACTIONS,
    PALETTE,
    Read,
    _is_action,
    as_picture,
    close_to,
    draw,
    gray_of,
    image_title,
    jpeg_tables,
    picture,
    png_bytes,
    read_image,
    same_pixels,
    scaled,
    scaled_problem,
    seed,
    sizes_of,
)


def _encoded(pixels: np.ndarray, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format=fmt, **options)
    return out.getvalue()


def _seed(index: int = 0) -> dict[str, object]:
    return seed(random.Random(f"gimp-test/{index}"), "_out")


def test_a_seed_is_drawn_the_same_from_its_metadata_and_is_no_mirror_of_itself() -> None:
    for index in range(10):
        meta = _seed(index)
        pic = as_picture(meta["picture"])  # type: ignore[arg-type]
        assert as_picture(pic.as_meta()) == pic
        pixels = draw(pic)
        assert pixels.shape == (pic.height, pic.width, 3) and 240 <= pic.width <= 480
        assert {tuple(c) for c in pixels.reshape(-1, 3).tolist()} <= set(PALETTE)
        for other in (pixels[:, ::-1], pixels[::-1], pixels[::-1, ::-1]):
            assert np.mean(np.any(other != pixels, axis=2)) >= 0.03
        assert meta["path"] != meta["out"] and str(meta["out"]).endswith("_out.png")


def test_a_png_reads_back_with_its_pixels_and_mode() -> None:
    pixels = draw(picture(random.Random(1), 120, 90))
    found = read_image(png_bytes(pixels), "PNG")
    assert isinstance(found, Read) and found.mode == "RGB" and found.format == "PNG"
    assert same_pixels(found.pixels, pixels, slack=0) is None
    gray = read_image(png_bytes(gray_of(pixels)), "PNG")
    assert isinstance(gray, Read) and gray.mode == "L" and gray.pixels.shape == (90, 120)


def test_an_opaque_alpha_channel_reads_as_none_and_a_transparent_one_stays() -> None:
    pixels = draw(picture(random.Random(2), 100, 80))
    alpha = np.dstack([pixels, np.full(pixels.shape[:2], 255, np.uint8)])
    found = read_image(_encoded(alpha, "PNG"), "PNG")
    assert isinstance(found, Read) and found.mode == "RGB" and same_pixels(found.pixels, pixels) is None
    alpha[0, 0, 3] = 0
    found = read_image(_encoded(alpha, "PNG"), "PNG")
    assert isinstance(found, Read) and found.mode == "RGBA"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (None, "no such file"),
        (b"", "not a readable PNG"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 40, "not a readable PNG"),
        (b"just some text\n", "not a readable PNG"),
    ],
)
def test_what_is_no_image_is_a_reason_not_a_crash(data: bytes | None, reason: str) -> None:
    found = read_image(data, "PNG")
    assert isinstance(found, str) and found.startswith(reason)


def test_the_format_is_read_from_the_content_not_the_name() -> None:
    pixels = draw(picture(random.Random(3), 64, 64))
    assert read_image(png_bytes(pixels), "JPEG") == "a PNG file, not JPEG"
    assert read_image(_encoded(pixels, "JPEG", quality=80), "PNG") == "a JPEG file, not PNG"
    assert read_image(_encoded(pixels, "BMP"), "PNG") == "a BMP file, not PNG"
    truncated = _encoded(pixels, "PNG")[:-30]
    assert isinstance(read_image(truncated, "PNG"), str)


def test_same_pixels_allows_rounding_only() -> None:
    pixels = draw(picture(random.Random(4), 90, 60))
    assert same_pixels(pixels, pixels) is None
    off = pixels.copy()
    off[0, 0, 0] ^= 1  # one value one off: rounding
    assert same_pixels(off, pixels) is None
    off[5, 5, 1] = (int(off[5, 5, 1]) + 40) % 256
    assert "differ" in str(same_pixels(off, pixels))
    assert "not" in str(same_pixels(pixels[:, ::-1][:, :80], pixels))
    assert same_pixels(pixels[:, ::-1], pixels) is not None and same_pixels(255 - pixels, pixels) is not None


def test_a_resampled_seed_is_close_and_a_crop_or_mirror_is_not() -> None:
    meta = _seed(5)
    meta["size"] = list(sizes_of(meta)[0])  # type: ignore[index]
    want = scaled(meta)
    width, height = meta["size"]  # type: ignore[misc]
    nearest = np.asarray(Image.fromarray(draw(as_picture(meta["picture"]))).resize((width, height), Image.NEAREST))  # type: ignore[arg-type]
    assert close_to(nearest, want, mean=8.0) is None  # another resampler: edges differ only
    assert scaled_problem(meta, Read("PNG", "RGB", nearest, {})) is None
    crop = draw(as_picture(meta["picture"]))[:height, :width]  # type: ignore[arg-type]
    assert close_to(crop, want, mean=8.0) is not None
    assert close_to(nearest[:, ::-1], want, mean=8.0) is not None
    assert "mode L" in str(scaled_problem(meta, Read("PNG", "L", nearest[:, :, 0], {})))


def test_sizes_keep_the_proportions_in_whole_pixels() -> None:
    for index in range(20):
        meta = _seed(index)
        pic = meta["picture"]
        for width, height in sizes_of(meta):
            assert width * pic["height"] == height * pic["width"]  # type: ignore[index]
            assert min(width, height) >= 60


def test_gray_is_the_luminance_of_the_linear_light() -> None:
    colours = np.array([[[0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 255, 0], [0, 0, 255], [128, 128, 128]]], np.uint8)
    assert gray_of(colours).tolist() == [[0, 255, 127, 220, 76, 128]]


def test_jpeg_tables_tell_each_quality_from_the_next() -> None:
    tables = [jpeg_tables(q) for q in range(40, 99)]
    assert all(a != b for a, b in itertools.pairwise(tables))
    pixels = draw(picture(random.Random(6), 160, 120))
    found = read_image(_encoded(pixels, "JPEG", quality=67), "JPEG")
    assert isinstance(found, Read) and found.quantization == jpeg_tables(67) != jpeg_tables(68)
    assert close_to(found.pixels, pixels, mean=6.0, far=60, share=0.03) is None


def test_gimps_title_is_matched_by_name_changes_and_size() -> None:
    title = "*[logo_7] (imported)-1.0 (RGB color 8-bit gamma integer, GIMP built-in sRGB, 1 layer) 400x300 – GIMP"
    assert image_title("logo_7.png")(title)
    assert image_title("logo_7.png", dirty=True, size=(400, 300))(title)
    assert not image_title("logo_7.png", dirty=False)(title)
    assert not image_title("logo_7.png", size=(300, 400))(title)
    assert not image_title("logo_8.png")(title)
    assert not image_title("logo_7.png")("GNU Image Manipulation Program")


def test_a_search_result_is_told_by_its_label_and_description() -> None:
    _, label, about = ACTIONS["flip-horizontal"]
    assert _is_action({"name": "Flip Horizontally\nFlip image horizontally"}, label, about)
    assert not _is_action({"name": "Flip Horizontally\nFlip the view horizontally"}, label, about)
    assert not _is_action({"name": "Flip Horizontally\nFlip drawable horizontally"}, label, about)
    _, label, about = ACTIONS["invert"]
    assert _is_action(
        {"name": 'Invert\nInvert the components (except alpha) perceptually, the result is "negative"'}, label, about
    )
    assert not _is_action({"name": "Invert | Ctrl+I\nInvert the selection"}, label, about)
    assert not _is_action({"name": "Linear Invert\nInvert the components (except alpha) in linear light"}, label, about)
    assert _is_action({"name": "Export As... | Shift+Ctrl+E\nExport the image"}, "Export As...", "Export the image")
