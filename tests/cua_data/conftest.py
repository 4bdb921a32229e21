"""Shared helpers for cua-data tests: small datasets written through DatasetWriter.

``make_dataset`` is a fixture returning the helper (conftest modules cannot be imported by tests
under ``--import-mode=importlib``): ``def test_x(make_dataset, tmp_path): make_dataset(tmp_path, 40)``.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from cua_data import DatasetWriter, LiteSample, Metadata


def noise_png(seed: int, size: tuple[int, int] = (16, 12)) -> bytes:
    """A small RGB PNG of seeded noise: distinct seeds give distinct bytes (no accidental dedup)."""
    pixels = random.Random(seed).randbytes(size[0] * size[1] * 3)
    out = io.BytesIO()
    Image.frombytes("RGB", size, pixels).save(out, "PNG")
    return out.getvalue()


def lite_sample(
    n: int,
    *,
    images: Sequence[bytes | str],
    platform: str = "desktop",
    task_type: str = "use",
    source: str = "test",
) -> LiteSample:
    """Row ``n``: a user turn showing its images, an assistant click, id ``row-<n>``."""
    batch_tool = "mobile" if platform == "mobile" else "computer"
    user: list[dict[str, Any]] = [{"type": "text", "text": f"task {n}"}]
    user += [{"type": "image", "index": i} for i in range(len(images))]
    messages = [
        {"role": "user", "content": user},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": f"click for {n}"}],
            "tool_calls": [
                {
                    "id": f"call-{n}",
                    "type": "function",
                    "function": {
                        "name": batch_tool,
                        "arguments": {"actions": [{"action": "click", "coordinate": [n % 1000, 500]}]},
                    },
                }
            ],
        },
    ]
    others = {"id": f"row-{n}", "source": source, "resolution": [1000, 1000]}
    return LiteSample(Metadata(platform, task_type, others=others), messages, list(images))


def make_dataset(
    root: Path,
    n_rows: int,
    *,
    n_images: int | None = None,
    images_per_row: int = 1,
    image_size: tuple[int, int] = (16, 12),
    platforms: Sequence[str] = ("desktop",),
    task_types: Sequence[str] = ("use",),
    splits: Sequence[str] = ("train",),
    variants: Sequence[str] = ("default",),
    sources: Sequence[str] = ("test",),
    row_group_size: int = 16,
    start: int = 0,
) -> list[str]:
    """Write rows ``start .. start + n_rows - 1`` to ``root``; return their ids in write order.

    Row ``n`` takes ``platforms[n % len]``, ``task_types[n % len]``, ``splits[n % len]``,
    ``variants[n % len]`` and ``sources[n % len]``; its images are noise PNGs drawn from ``n_images`` distinct ones (default:
    every image distinct), so the image store holds ``min(n_images, rows * images_per_row)`` files.
    """
    distinct = n_images if n_images is not None else n_rows * images_per_row
    cache: dict[int, bytes] = {}
    ids = []
    with DatasetWriter(root, row_group_size=row_group_size) as writer:
        for n in range(start, start + n_rows):
            seeds = [((n - start) * images_per_row + k) % distinct for k in range(images_per_row)]
            images = [cache.setdefault(s, noise_png(s, image_size)) for s in seeds]
            sample = lite_sample(
                n,
                images=images,
                platform=platforms[n % len(platforms)],
                task_type=task_types[n % len(task_types)],
                source=sources[n % len(sources)],
            )
            assert writer.add(sample, split=splits[n % len(splits)], variant=variants[n % len(variants)])
            ids.append(f"row-{n}")
    return ids


@pytest.fixture(name="make_dataset")
def make_dataset_fixture() -> Callable[..., list[str]]:
    """The :func:`make_dataset` helper, as a fixture."""
    return make_dataset
