"""Between the local layout (image paths) and hub shards (image bytes inside the Parquet).

Hub shards keep the partition paths and store ``images`` as ``list<struct<bytes, path>>`` — the
storage of a 🤗 ``datasets`` ``Sequence(Image())`` column, so the shards load there as they are.
Conversions stream one row group at a time. Each file records the row-group sizes of the other
layout in its Parquet metadata, so local -> hub -> local (and hub -> local -> hub) gives back the
same partition files, byte for byte, for files this cua-data wrote (a file written elsewhere, such
as CUA-Lite's own, comes back with equal rows in this writer's encoding).

Both directions refuse, before writing anything, a source of the wrong layout and a destination
that overlaps the source or already holds anything; each leaves its layout's marker (see
:mod:`cua_data.markers`) once every partition is written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from cua_data.errors import StoreError
from cua_data.images import ImageStore
from cua_data.layout import find_partitions, partition_path
from cua_data.markers import (
    DATASET_MARKER,
    HUB_MARKER,
    check_apart,
    require_dataset,
    require_empty,
    require_hub,
    resolve_dataset,
    write_marker,
)
from cua_data.reader import open_parquet
from cua_data.writer import RL_SCHEMA, ROW_SCHEMA, write_table

__all__ = ["HUB_IMAGES", "export_hub", "import_hub"]

HUB_IMAGES = pa.list_(pa.struct([("bytes", pa.binary()), ("path", pa.string())]))
_LOCAL_GROUPS = b"cua.local_row_groups"
# A hub row group carries its images, so it is cut by bytes as well as by rows.
HUB_GROUP_BYTES = 64 * 1024 * 1024
HUB_GROUP_ROWS = 1024


def _schema(read: pa.Schema, hub: bool) -> pa.Schema:
    """The canonical schema of a file of either layout, so conversions write exactly what
    DatasetWriter writes (a schema read back from disk may differ in invisible details)."""
    local = RL_SCHEMA if "rl" in read.names else ROW_SCHEMA
    if not hub:
        return local
    return local.set(local.get_field_index("images"), pa.field("images", HUB_IMAGES))


def _with_local_groups(schema: pa.Schema, sizes: list[int]) -> pa.Schema:
    """A hub schema recording the local file's row-group sizes, for the way back."""
    return schema.with_metadata({_LOCAL_GROUPS: json.dumps(sizes).encode()})


def _regroup(rows: Iterator[dict[str, Any]], sizes: list[int] | None, default: int) -> Iterator[list[dict[str, Any]]]:
    """Cut a row stream into groups of the recorded sizes (then ``default`` for any rest)."""
    wanted = iter(sizes or [])
    group: list[dict[str, Any]] = []
    target = next(wanted, default)
    for row in rows:
        group.append(row)
        if len(group) == target:
            yield group
            group = []
            target = next(wanted, default)
    if group:
        yield group


def export_hub(src: Path, dst: Path) -> int:
    """Write ``src``'s partitions to ``dst`` with image bytes embedded; returns rows written."""
    src = resolve_dataset(src, "export-hub")
    layout = require_dataset(src, "export-hub")
    check_apart(src, dst, "hub export")
    require_empty(dst, "hub export")
    store = ImageStore(src, layout.dataset_name)
    total = 0
    counts: dict[str, int] = {}
    for partition in find_partitions(src):
        path = partition_path(src, partition)
        parquet = open_parquet(path)
        local_sizes = [parquet.metadata.row_group(i).num_rows for i in range(parquet.num_row_groups)]
        schema = _with_local_groups(_schema(parquet.schema_arrow, hub=True), local_sizes)

        def embedded(parquet: Any = parquet, path: Path = path) -> Iterator[dict[str, Any]]:
            number = 0
            for i in range(parquet.num_row_groups):
                for row in parquet.read_row_group(i).to_pylist():
                    try:
                        row["images"] = [{"bytes": store.get(ref), "path": ref} for ref in row["images"] or []]
                    except StoreError as exc:
                        raise StoreError(f"{path} row {number}: {exc}") from exc
                    number += 1
                    yield row

        batches = (pa.RecordBatch.from_pylist(group, schema=schema) for group in _hub_groups(embedded()))
        write_table(partition_path(dst, partition), batches, schema)
        total += sum(local_sizes)
        counts[str(partition)] = sum(local_sizes)
    dst.mkdir(parents=True, exist_ok=True)
    write_marker(dst, HUB_MARKER, store.dataset, counts)
    return total


def _hub_groups(rows: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    group: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        row_bytes = sum(len(image["bytes"]) for image in row["images"])
        if group and (size + row_bytes > HUB_GROUP_BYTES or len(group) >= HUB_GROUP_ROWS):
            yield group
            group, size = [], 0
        group.append(row)
        size += row_bytes
    if group:
        yield group


def import_hub(src: Path, dst: Path, *, dataset: str | None = None) -> int:
    """Write hub shards ``src`` as a local dataset ``dst`` (images into its store); returns rows."""
    layout = require_hub(src)
    check_apart(src, dst, "dataset")
    require_empty(dst, "dataset")
    store = ImageStore(dst, dataset or layout.dataset_name)
    expected: dict[str, int] = dict(layout.marker["partitions"]) if layout.marker else {}
    partitions = find_partitions(src)
    missing = sorted(set(expected) - {str(p) for p in partitions})
    if missing:
        raise StoreError(
            f"{src}: {len(missing)} partition(s) listed in {HUB_MARKER} are missing ({', '.join(missing[:3])}): "
            "the copy is incomplete; fetch or export it again"
        )
    total = 0
    counts: dict[str, int] = {}
    for partition in partitions:
        path = partition_path(src, partition)
        parquet = open_parquet(path)
        if str(partition) in expected and parquet.metadata.num_rows != expected[str(partition)]:
            raise StoreError(
                f"{path}: holds {parquet.metadata.num_rows} rows, {HUB_MARKER} says {expected[str(partition)]}: "
                "the copy is incomplete or was changed; fetch or export it again"
            )
        recorded = (parquet.schema_arrow.metadata or {}).get(_LOCAL_GROUPS)
        local_sizes = json.loads(recorded) if recorded else None
        schema = _schema(parquet.schema_arrow, hub=False)

        def stored(parquet: Any = parquet, path: Path = path) -> Iterator[dict[str, Any]]:
            number = 0
            try:
                for batch in parquet.iter_batches(batch_size=256):
                    for row in batch.to_pylist():
                        row["images"] = [_store(store, image, f"{path} row {number}") for image in row["images"] or []]
                        number += 1
                        yield row
            except (pa.ArrowException, OSError) as exc:
                raise StoreError(
                    f"{path}: read failed at row {number} ({exc}); the shard is truncated or corrupt"
                ) from exc

        groups = _regroup(stored(), local_sizes, 1024)
        batches = (pa.RecordBatch.from_pylist(group, schema=schema) for group in groups)
        write_table(partition_path(dst, partition), batches, schema)
        total += parquet.metadata.num_rows
        counts[str(partition)] = parquet.metadata.num_rows
    dst.mkdir(parents=True, exist_ok=True)
    write_marker(dst, DATASET_MARKER, store.dataset, counts)
    return total


def _store(store: ImageStore, image: dict[str, Any], where: str) -> str:
    data = image.get("bytes")
    if not data:
        raise StoreError(f"{where}: an image has no bytes")
    ref = image.get("path")
    if ref:
        # Keep the recorded path (its dataset prefix included) when it names these very bytes.
        sha = hashlib.sha256(data).hexdigest()
        if Path(ref).stem != sha:
            raise StoreError(f"{where}: image {ref!r} does not match its bytes (sha256 {sha[:12]}...)")
        target = store.path(ref)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return str(ref)
    return store.put(data)
