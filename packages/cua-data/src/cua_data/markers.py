"""Which layout a folder holds — a local dataset or a hub export — so no command reads one as the other.

The two layouts share their partition paths and differ only inside the Parquet (``images`` as store
paths, or as embedded ``{bytes, path}`` structs), which is how a hub export once overwrote its own
source and then passed for a valid, empty dataset. So each writer leaves a marker at the root:

    <root>/cua-dataset.json   written by DatasetWriter and import-hub
    <root>/cua-hub.json       written by export-hub

Both hold ``{"kind", "format", "dataset", "rows", "partitions": {"<partition path>": rows}, "written_by"}``
(sorted keys, no timestamps: the same content gives the same bytes). A folder without a marker —
CUA-Lite's published datasets, folders written before markers existed, hub shards fetched from
elsewhere — is recognised from its files: the ``images`` column type of its first readable
partition, else an ``images/<aa>/`` store.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq

from cua_data.errors import StoreError
from cua_data.layout import TMP_MARK, Partition, find_partitions, partition_path

__all__ = [
    "DATASET_MARKER",
    "FORMAT",
    "HUB_MARKER",
    "RUN_DATASET",
    "Layout",
    "check_apart",
    "layout_of",
    "parse_marker",
    "require_dataset",
    "require_empty",
    "require_hub",
    "resolve_dataset",
    "write_marker",
]

DATASET_MARKER = "cua-dataset.json"
HUB_MARKER = "cua-hub.json"
FORMAT = 1  # raised when a marker's meaning changes; a reader refuses formats newer than its own
_KINDS = {DATASET_MARKER: "cua-dataset", HUB_MARKER: "cua-hub"}

RUN_DATASET = "trajectories"  # the dataset inside a run folder: what ``cua-bench run`` records
_SHARD = re.compile(r"[0-9a-f]{2}")
Kind = Literal["dataset", "hub", "empty", "other", "missing"]
_BOTH = (
    "a dataset (cua-dataset.json, images/<aa>/<sha>.<ext> and <platform>/<task_type>/<split>/<variant>.parquet) "
    "nor a hub export (cua-hub.json and the same partition files with the image bytes inside)"
)


@dataclass(frozen=True)
class Layout:
    """What a folder holds; ``marker`` is its parsed marker, None when recognised from its files."""

    root: Path
    kind: Kind
    marker: dict[str, Any] | None = None

    @property
    def dataset_name(self) -> str | None:
        name = (self.marker or {}).get("dataset")
        return name if isinstance(name, str) else None


def parse_marker(text: str | bytes, where: str, expected: str) -> dict[str, Any]:
    """A marker's content, checked; anything malformed is a StoreError naming the file and the fix."""
    fix = f"delete {where} (the layout is then recognised from its files) or restore it"
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoreError(f"{where}: not valid JSON ({exc}); {fix}") from exc
    if not isinstance(data, dict):
        raise StoreError(f"{where}: must be a JSON object, got {type(data).__name__}; {fix}")
    if data.get("kind") != expected:
        raise StoreError(f"{where}: kind must be {expected!r}, got {data.get('kind')!r}; {fix}")
    version = data.get("format")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise StoreError(f"{where}: format must be a positive integer, got {version!r}; {fix}")
    if version > FORMAT:
        raise StoreError(
            f"{where}: written by a newer cua-data (format {version}; this one reads up to {FORMAT}): "
            "upgrade cua-data (git pull, then pip install ./packages/cua-data in your clone of cua)"
        )
    if not _count(data.get("rows")):
        raise StoreError(f"{where}: rows must be a count (an integer >= 0), got {data.get('rows')!r}; {fix}")
    partitions = data.get("partitions")
    if not isinstance(partitions, dict) or not all(isinstance(k, str) and _count(v) for k, v in partitions.items()):
        raise StoreError(f"{where}: partitions must map partition paths to row counts; {fix}")
    if data.get("dataset") is not None and not isinstance(data.get("dataset"), str):
        raise StoreError(f"{where}: dataset must be a name, got {data.get('dataset')!r}; {fix}")
    return data


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _read_marker(root: Path, name: str) -> dict[str, Any] | None:
    path = root / name
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{path}: cannot be read ({exc})") from exc
    return parse_marker(text, str(path), _KINDS[name])


def layout_of(root: Path) -> Layout:
    """Recognise ``root``: by its marker, or (folders written without one) by its files."""
    if not root.exists():
        return Layout(root, "missing")
    if not root.is_dir():
        return Layout(root, "other")
    dataset, hub = _read_marker(root, DATASET_MARKER), _read_marker(root, HUB_MARKER)
    if dataset is not None and hub is not None:
        raise StoreError(
            f"{root} has both {DATASET_MARKER} and {HUB_MARKER}: delete the one that does not describe its files"
        )
    if dataset is not None:
        return Layout(root, "dataset", dataset)
    if hub is not None:
        return Layout(root, "hub", hub)
    # No marker: CUA-Lite's published layout, or a folder written before markers existed.
    # The partition files tell the layouts apart by their images column; an images/ store alone is a dataset.
    found = _images_type(root)
    if found == "hub":
        return Layout(root, "hub")
    if found == "dataset" or _has_store(root):
        return Layout(root, "dataset")
    return Layout(root, "empty" if not any(root.iterdir()) else "other")


def _images_type(root: Path) -> Literal["dataset", "hub"] | None:
    """The layout that the first readable partition file's ``images`` column says (None: no such file)."""
    seen = False
    for top in root.iterdir():
        if not top.is_dir() or top.name == "images":
            continue
        for path in top.glob("*/*/*.parquet"):
            if TMP_MARK in path.name:
                continue
            seen = True
            try:
                schema = pq.read_schema(path)
            except (pa.ArrowException, OSError):
                continue  # validate reports it; another file may still tell the layout
            if "images" in schema.names:
                value = schema.field("images").type
                if pa.types.is_list(value) and pa.types.is_struct(value.value_type):
                    return "hub"
                return "dataset"
    return "dataset" if seen else None


def _has_store(root: Path) -> bool:
    """An ``images/<aa>/`` store (two hex digits), not any images folder: native datasets have those too."""
    store = root / "images"
    return store.is_dir() and any(_SHARD.fullmatch(p.name) and p.is_dir() for p in store.iterdir())


def _layouts_hint(root: Path) -> str:
    return f"{root} is neither {_BOTH}"


def resolve_dataset(path: Path | str, command: str | None = None, *, allow_empty: bool = False) -> Path:
    """The dataset folder ``path`` names: itself when it is a dataset, or the one a run folder holds
    (``RUN/trajectories``, where ``cua-bench run`` records its episodes). Every reader of a dataset a
    user names comes through here, so a run folder works wherever a dataset does, and anything else is
    one StoreError naming both (``command``: the cua-data command its fix names, if it came from one).
    ``allow_empty``: an empty folder is a dataset of no rows (``DatasetReader``'s, for a writer that
    has written nothing yet), not an error."""
    root = Path(path)
    kind = layout_of(root).kind
    if kind == "other" and layout_of(root / RUN_DATASET).kind == "dataset":
        return root / RUN_DATASET
    if not (allow_empty and kind == "empty"):
        require_dataset(root, command)
    return root


def require_dataset(root: Path, command: str | None) -> Layout:
    """``root``'s layout if it is a dataset; otherwise a StoreError naming both layouts and the right command."""
    layout = layout_of(root)
    if layout.kind == "dataset":
        return layout
    if layout.kind == "hub":
        then = f"`cua-data {command} DST`" if command else "read DST"
        raise StoreError(
            f"{root} is a hub export, not a dataset: run `cua-data import-hub {root} DST` first, then {then}"
        )
    if layout.kind == "missing":
        raise StoreError(f"{root}: no such dataset folder")
    if layout.kind == "empty":
        raise StoreError(
            f"{root} is an empty folder, not a dataset: make one with `cua-data convert --from FORMAT SRC {root}` "
            "or `cua-data import-hub HUB DST`"
        )
    if (root / "episodes.jsonl").is_file():  # a run folder without its dataset
        raise StoreError(
            f"{root} is a run folder that recorded no trajectories ({root / RUN_DATASET} is not a dataset; "
            "was it run with --no-record?): rerun it without --no-record, or point at a dataset folder"
        )
    where = f"point `cua-data {command}` at" if command else "give"
    raise StoreError(
        f"{_layouts_hint(root)}, nor a run folder holding one ({root / RUN_DATASET}): {where} a dataset folder "
        "or a `cua-bench run` folder"
    )


def require_hub(root: Path) -> Layout:
    """``root``'s layout if it is a hub export; otherwise a StoreError naming both layouts and the right command."""
    layout = layout_of(root)
    if layout.kind == "hub":
        return layout
    if layout.kind == "dataset":
        raise StoreError(
            f"{root} is a dataset, not a hub export: it needs no import (read it as it is), "
            f"or run `cua-data export-hub {root} DST` to make a hub export of it"
        )
    if layout.kind == "missing":
        raise StoreError(f"{root}: no such hub export folder")
    raise StoreError(f"{_layouts_hint(root)}: point `cua-data import-hub` at a folder written by `cua-data export-hub`")


def require_empty(root: Path, what: str) -> None:
    """Refuse to write ``what`` into a folder that holds anything: nothing there is overwritten."""
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        kind = layout_of(root).kind if root.is_dir() else "other"
        held = {"dataset": "a dataset", "hub": "a hub export"}.get(kind, "other files")
        raise StoreError(f"{root} already holds {held}: choose a new or empty folder for the {what}")


def check_apart(src: Path, dst: Path, what: str) -> None:
    """Refuse a destination that is, is inside, or contains the source — before anything is written."""
    a, b = src.resolve(), dst.resolve()
    if a == b:
        raise StoreError(f"the destination {dst} is the source itself: write the {what} to another folder")
    if a in b.parents:
        raise StoreError(f"the destination {dst} is inside the source {src}: write the {what} outside it")
    if b in a.parents:
        raise StoreError(f"the destination {dst} contains the source {src}: write the {what} to a separate folder")


def count_partitions(root: Path, partitions: list[Partition] | None = None) -> dict[str, int]:
    """Rows per partition from the Parquet footers; unreadable files are left out (validate reports them)."""
    counts = {}
    for partition in find_partitions(root) if partitions is None else partitions:
        try:
            counts[str(partition)] = pq.read_metadata(partition_path(root, partition)).num_rows
        except (pa.ArrowException, OSError):
            continue
    return counts


def write_marker(root: Path, name: str, dataset: str | None, partitions: Mapping[str, int]) -> None:
    """Write ``root/name`` atomically (aside, then renamed), with sorted keys so equal content is equal bytes."""
    content = {
        "kind": _KINDS[name],
        "format": FORMAT,
        "dataset": dataset,
        "rows": sum(partitions.values()),
        "partitions": dict(sorted(partitions.items())),
        "written_by": f"cua-data {_version()}",
    }
    path = root / name
    tmp = path.with_name(f".{name}{TMP_MARK}{os.getpid()}")
    tmp.write_text(json.dumps(content, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


@cache  # a marker is rewritten on every write; reading the installed metadata each time cost ~1 ms
def _version() -> str:
    try:
        return metadata.version("cua-data")
    except metadata.PackageNotFoundError:  # run from a source tree without installing
        return "unknown"
