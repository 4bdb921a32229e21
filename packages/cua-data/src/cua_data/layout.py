"""Where things live in a dataset folder, as CUA-Lite lays it out.

    <root>/images/<sha256[:2]>/<sha256>.<ext>               content-addressed images
    <root>/<platform>/<task_type>/<split>/<variant>.parquet  one file per partition

Rows reference images as ``cua-lite/<DatasetName>/images/<aa>/<sha>.<ext>`` (relative to the folder
that holds all datasets), so a folder named after the dataset can be dropped beside CUA-Lite's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cua_data.errors import StoreError
from cua_data.schema import PLATFORMS, SPLITS, TASK_TYPES

__all__ = ["Partition", "find_partitions", "image_ref", "partition_path", "resolve_image"]

_VARIANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
TMP_MARK = ".tmp-"  # partial files carry it; readers never see them


@dataclass(frozen=True, order=True)
class Partition:
    platform: str
    task_type: str
    split: str
    variant: str

    def relpath(self) -> Path:
        return Path(self.platform, self.task_type, self.split, f"{self.variant}.parquet")

    def __str__(self) -> str:
        return f"{self.platform}/{self.task_type}/{self.split}/{self.variant}.parquet"


def partition_path(root: Path, partition: Partition) -> Path:
    return root / partition.relpath()


def check_partition(platform: str, task_type: str, split: str, variant: str) -> Partition:
    if platform not in PLATFORMS:
        raise StoreError(f"platform {platform!r} is not one of {', '.join(PLATFORMS)}")
    if task_type not in TASK_TYPES:
        raise StoreError(f"task type {task_type!r} is not one of {', '.join(TASK_TYPES)}")
    if split not in SPLITS:
        raise StoreError(f"split {split!r} is not one of {', '.join(SPLITS)}")
    if not _VARIANT.fullmatch(variant):
        raise StoreError(f"variant {variant!r} must be a file-name-safe word such as 'default'")
    return Partition(platform, task_type, split, variant)


def find_partitions(root: Path) -> list[Partition]:
    """Every partition file under ``root``, sorted; partial files of an interrupted write are skipped."""
    if not root.is_dir():
        raise StoreError(f"{root}: no such dataset folder")
    found = []
    # Not root.glob("*/*/*/*.parquet"): that would list every file of images/, millions at scale.
    paths = (p for top in root.iterdir() if top.is_dir() and top.name != "images" for p in top.glob("*/*/*.parquet"))
    for path in paths:
        if TMP_MARK in path.name:
            continue
        platform, task_type, split = path.parts[-4:-1]
        try:
            found.append(check_partition(platform, task_type, split, path.stem))
        except StoreError as exc:
            raise StoreError(
                f"{path}: not a partition of the layout <platform>/<task_type>/<split>/<variant>.parquet: {exc}"
            ) from exc
    return sorted(found)


def image_ref(dataset: str, sha: str, ext: str) -> str:
    """The path a row stores for an image."""
    return f"cua-lite/{dataset}/images/{sha[:2]}/{sha}.{ext}"


def resolve_image(root: Path, ref: str) -> Path:
    """The file of a row's image path, whatever prefix the row gives before ``images/``."""
    if not isinstance(ref, str):  # a hub export's {bytes, path}, or a row not read through the schema
        raise StoreError(f"image reference {str(ref)[:80]!r} is a {type(ref).__name__}, not a store path")
    _, sep, tail = ref.rpartition("images/")
    if not sep or tail.count("/") != 1:
        raise StoreError(f"image path {ref!r} is not of the form [.../]images/<aa>/<sha>.<ext>")
    return root / "images" / tail
