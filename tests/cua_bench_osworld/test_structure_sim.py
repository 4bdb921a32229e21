"""Our twin of OSWorld's ``check_structure_sim_with_threshold`` (newer than desktop-env 1.0.2).

Its SSIM is held to scikit-image's, the function OSWorld calls; its scores to OSWorld's formula (the
function's steps, written here over scikit-image) and, where desktop-env is installed, to 1.0.2's own
``structure_check_by_ssim``, which computes the same index for same-size images.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import numpy as np
import pytest
from PIL import Image

from cua_bench_osworld.loader import load_task
from cua_bench_osworld.metrics import BUILTIN_METRICS
from cua_bench_osworld.official import official_metrics
from cua_bench_osworld.structure_sim import check_structure_sim_with_threshold, structural_similarity
from cua_bench_osworld.support import check_support

TASK = "multi_apps/e8172110-ec08-421b-a6f5-842e6451911f.json"  # GIMP and a script cut out a pixel-art character


def _missing(reason: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}")
    pytest.skip(reason)


def skimage_ssim() -> Callable[..., float]:
    try:
        from skimage.metrics import structural_similarity as ssim
    except ImportError:
        _missing("scikit-image is not installed (the osworld extra): OSWorld's SSIM cannot be compared")
    return ssim


def osworld_similarity(src: str, tgt: str) -> float | None:
    """The SSIM OSWorld's function compares with its threshold, step by step over scikit-image (its
    logging left out); None where it fails and scores 0 (a 1x1 window: scikit-image divides by NP - 1)."""
    ssim = skimage_ssim()
    try:
        first: Image.Image = Image.open(src)
        second = Image.open(tgt)
        if first.size != second.size:
            first = first.resize(second.size, Image.Resampling.LANCZOS)
        a, b = np.array(first.convert("RGB")), np.array(second.convert("RGB"))
        smallest = min(a.shape[0], a.shape[1])
        win_size = 7 if smallest >= 7 else (smallest if smallest % 2 == 1 else smallest - 1)
        return float(ssim(a, b, win_size=win_size, channel_axis=2))
    except Exception:
        return None


def osworld_formula(src: str, tgt: str, threshold: float) -> float:
    similarity = osworld_similarity(src, tgt)
    return 1.0 if similarity is not None and similarity >= threshold else 0.0


def save(path: Path, pixels: np.ndarray, mode: str | None = None) -> str:
    image = Image.fromarray(pixels)
    (image.convert(mode) if mode else image).save(path)
    return str(path)


def noisy(pixels: np.ndarray, spread: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(pixels.astype(int) + rng.integers(-spread, spread + 1, pixels.shape), 0, 255).astype(np.uint8)


def picture(height: int, width: int, seed: int = 0, channels: int = 3) -> np.ndarray:
    """Smooth shapes with a little texture, like a drawing (SSIM of pure noise is near 0 for anything)."""
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([(x * 255 // max(width - 1, 1)), (y * 255 // max(height - 1, 1)), ((x + y) % 64) * 4], axis=-1)
    base[(x - width // 2) ** 2 + (y - height // 2) ** 2 < (min(height, width) // 3) ** 2] = (200, 40, 90)
    if channels == 4:
        alpha = np.where((x > width // 4) & (y > height // 4), 255, 0)[..., None]
        base = np.concatenate([base, alpha], axis=-1)
    return noisy(base.astype(np.uint8), 6, seed)


# -- the index ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "win_size", "spread"),
    [((48, 64, 3), 7, 30), ((7, 9, 3), 7, 60), ((5, 8, 3), 5, 10), ((3, 3, 3), 3, 80), ((40, 33, 3), 7, 0),
     ((30, 30, 4), 7, 20), ((25, 17, 1), 5, 40)],
)  # fmt: skip
def test_our_ssim_is_scikit_images(shape: tuple[int, ...], win_size: int, spread: int) -> None:
    ssim = skimage_ssim()
    first = np.random.default_rng(1).integers(0, 256, shape, dtype=np.uint8)
    second = noisy(first, spread, 2)
    ours = structural_similarity(first, second, win_size)
    assert ours == pytest.approx(ssim(first, second, win_size=win_size, channel_axis=2), abs=1e-9)
    assert structural_similarity(first, first, win_size) == pytest.approx(1.0, abs=1e-12)


def test_our_ssim_refuses_what_scikit_image_refuses() -> None:
    image = np.zeros((6, 10, 3), np.uint8)
    with pytest.raises(ValueError, match="must be odd and fit"):
        structural_similarity(image, image, 7)  # taller than the image
    with pytest.raises(ValueError, match="must be odd and fit"):
        structural_similarity(image, image, 4)
    with pytest.raises(ValueError, match="one height x width x channels shape"):
        structural_similarity(image, np.zeros((6, 9, 3), np.uint8), 5)


# -- the metric ------------------------------------------------------------------------------------


def test_a_like_image_passes_and_an_unlike_one_fails(tmp_path: Path) -> None:
    gold = save(tmp_path / "gold.png", picture(48, 64))
    assert check_structure_sim_with_threshold(gold, gold, ssim_threshold=0.85) == 1.0
    close = save(tmp_path / "close.png", noisy(picture(48, 64), 8, 3))
    assert check_structure_sim_with_threshold(close, gold, ssim_threshold=0.85) == 1.0
    assert check_structure_sim_with_threshold(close, gold) == 1.0  # 0.85 by default
    unlike = save(tmp_path / "unlike.png", picture(48, 64)[::-1, ::-1])
    assert check_structure_sim_with_threshold(unlike, gold, ssim_threshold=0.85) == 0.0


def test_the_threshold_is_inclusive(tmp_path: Path) -> None:
    gold = save(tmp_path / "gold.png", picture(48, 64))
    close = save(tmp_path / "close.png", noisy(picture(48, 64), 40, 4))
    value = structural_similarity(np.array(Image.open(close)), np.array(Image.open(gold)))
    assert 0.3 < value < 0.99
    assert check_structure_sim_with_threshold(close, gold, ssim_threshold=value) == 1.0
    assert check_structure_sim_with_threshold(close, gold, ssim_threshold=value + 1e-9) == 0.0


def test_nothing_to_compare_scores_0(tmp_path: Path) -> None:
    gold = save(tmp_path / "gold.png", picture(48, 64))
    (tmp_path / "text.png").write_text("not an image")
    assert check_structure_sim_with_threshold(None, gold) == 0.0
    assert check_structure_sim_with_threshold(gold, None) == 0.0
    assert check_structure_sim_with_threshold(str(tmp_path / "absent.png"), gold) == 0.0
    assert check_structure_sim_with_threshold(str(tmp_path / "text.png"), gold) == 0.0


def cases(tmp_path: Path) -> list[tuple[str, str]]:
    """Pairs OSWorld's steps treat differently: sizes, modes (alpha dropped, a palette), tiny images."""
    gold = save(tmp_path / "gold.png", picture(48, 64))
    rgba_gold = save(tmp_path / "rgba_gold.png", picture(40, 40, channels=4))
    return [
        (save(tmp_path / "close.png", noisy(picture(48, 64), 10, 5)), gold),
        (save(tmp_path / "bigger.png", noisy(picture(96, 128), 10, 6)), gold),  # resized to the gold's size
        (save(tmp_path / "wide.png", picture(48, 90, seed=7)), gold),
        (save(tmp_path / "rgba.png", noisy(picture(40, 40, channels=4), 12, 8)), rgba_gold),
        (save(tmp_path / "palette.png", picture(48, 64, seed=9), mode="P"), gold),
        (save(tmp_path / "grey.png", picture(48, 64, seed=10), mode="L"), gold),
        (save(tmp_path / "tiny.png", picture(5, 6, seed=11)), save(tmp_path / "tiny_gold.png", picture(5, 6))),
        (save(tmp_path / "strip.png", picture(2, 9, seed=12)), save(tmp_path / "strip_gold.png", picture(2, 9))),
    ]


def test_scores_are_osworlds_formula_at_thresholds_around_each_value(tmp_path: Path) -> None:
    skimage_ssim()
    for src, tgt in cases(tmp_path):
        similarity = osworld_similarity(src, tgt)
        around = [] if similarity is None else [similarity - 1e-9, similarity + 1e-9]
        for threshold in (0.0, 0.5, 0.85, 0.9, 0.99, 1.0, *around):
            ours = check_structure_sim_with_threshold(src, tgt, ssim_threshold=threshold)
            assert ours == osworld_formula(src, tgt, threshold), (src, threshold)
    passes = [check_structure_sim_with_threshold(s, t, ssim_threshold=0.5) for s, t in cases(tmp_path)]
    assert 0.0 in passes and 1.0 in passes  # the cases pass and fail, so agreeing says something


def osworld_structure_check() -> Callable[..., bool]:
    """desktop-env 1.0.2's ``structure_check_by_ssim`` (gimp.py), as ``official`` loaded it."""
    loaded = official_metrics()
    module = sys.modules.get("desktop_env.evaluators.metrics.gimp")
    if module is None:
        _missing(f"desktop-env's gimp metrics are not loaded: {loaded.error or loaded.failed.get('gimp')}")
    check: Callable[..., bool] = module.structure_check_by_ssim
    return check


def test_scores_are_desktop_envs_own_ssim_check_on_same_size_images(tmp_path: Path) -> None:
    check = osworld_structure_check()
    same_size = [(s, t) for s, t in cases(tmp_path) if Image.open(s).size == Image.open(t).size >= (7, 7)]
    assert len(same_size) >= 4
    for src, tgt in same_size:
        for threshold in (0.3, 0.7, 0.85, 0.95):
            theirs = 1.0 if check(Image.open(src), Image.open(tgt), threshold=threshold) else 0.0
            assert check_structure_sim_with_threshold(src, tgt, ssim_threshold=threshold) == theirs, (src, threshold)


def test_the_metric_is_built_in_and_its_fixture_task_no_longer_skipped_for_it(shared_fixtures: Path) -> None:
    assert BUILTIN_METRICS["check_structure_sim_with_threshold"] is check_structure_sim_with_threshold
    task = load_task(shared_fixtures / "osworld_more" / TASK)
    officials: tuple[frozenset[str] | None, ...] = (frozenset(), None)
    for official in officials:  # named by the caller; judged by the installed desktop-env
        reasons = check_support(task, official=official, mirror=None).reasons
        assert not [r for r in reasons if "check_structure_sim_with_threshold" in r], reasons
