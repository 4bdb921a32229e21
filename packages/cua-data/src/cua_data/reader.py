"""Reading a dataset folder: streamed by row group, filtered by partition and source.

Platform, task type, split and variant filters choose files before anything is read; a source
filter needs each row's metadata, so it is applied per row. Errors name the file and the row.
The folder is resolved when the reader is made (``resolve_dataset``): a run folder reads as the
dataset it holds, an empty folder as no rows, and a hub export (its rows hold image bytes, not store
paths) or a folder that is no dataset is refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from cua_data.errors import SampleError, StoreError
from cua_data.images import ImageStore
from cua_data.layout import Partition, find_partitions, partition_path
from cua_data.markers import resolve_dataset
from cua_data.schema import LiteSample

__all__ = ["DatasetReader", "open_parquet", "row_id"]


def open_parquet(path: Path) -> pq.ParquetFile:
    """Open one partition file, turning Arrow's errors into one that names the file and the fix."""
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise StoreError(
            f"{path}: not a readable Parquet file ({exc}); it may be truncated or corrupt — "
            "restore it, or run `cua-data validate` to list every bad file"
        ) from exc


@dataclass(frozen=True)
class _Filters:
    platform: str | None
    task_type: str | None
    split: str | None
    variant: str | None
    source: str | None

    def keeps(self, partition: Partition) -> bool:
        return all(
            want is None or want == got
            for want, got in (
                (self.platform, partition.platform),
                (self.task_type, partition.task_type),
                (self.split, partition.split),
                (self.variant, partition.variant),
            )
        )


class DatasetReader:
    """Iterate the rows of a dataset folder as LiteSamples (or raw Arrow batches)."""

    def __init__(
        self,
        root: Path | str,
        *,
        platform: str | None = None,
        task_type: str | None = None,
        split: str | None = None,
        variant: str | None = None,
        source: str | None = None,
        batch_size: int = 1024,
    ) -> None:
        # a run folder reads as its trajectories; a hub export or a folder that is no dataset is refused
        self.root = resolve_dataset(root, allow_empty=True)
        self.filters = _Filters(platform, task_type, split, variant, source)
        self.batch_size = batch_size
        self.images = ImageStore(self.root)

    def partitions(self) -> list[Partition]:
        return [p for p in find_partitions(self.root) if self.filters.keeps(p)]

    def path(self, partition: Partition) -> Path:
        return partition_path(self.root, partition)

    def batches(self, columns: list[str] | None = None) -> Iterator[tuple[Partition, pa.RecordBatch]]:
        """Raw Arrow batches of every kept partition; the source filter is not applied here."""
        for partition in self.partitions():
            parquet = open_parquet(self.path(partition))
            try:
                for batch in parquet.iter_batches(batch_size=self.batch_size, columns=columns):
                    yield partition, batch
            except (pa.ArrowException, OSError) as exc:
                raise StoreError(
                    f"{self.path(partition)}: read failed mid-file ({exc}); it is truncated or corrupt"
                ) from exc

    def rows(self) -> Iterator[tuple[Partition, int, dict[str, Any]]]:
        """(partition, row number in its file, raw row) for every kept row."""
        source = self.filters.source
        for partition, start, batch in self._numbered():
            for offset, row in enumerate(batch.to_pylist(), start):
                if source is None or _source(row) == source:
                    yield partition, offset, row

    def _numbered(self) -> Iterator[tuple[Partition, int, pa.RecordBatch]]:
        current: Partition | None = None
        start = 0
        for partition, batch in self.batches():
            if partition != current:
                current, start = partition, 0
            yield partition, start, batch
            start += batch.num_rows

    def __iter__(self) -> Iterator[LiteSample]:
        for partition, number, row in self.rows():
            try:
                yield LiteSample.from_row(row)
            except SampleError as exc:  # where it happened is worked out only when it did
                raise SampleError(f"{self.path(partition)} row {number}: {exc}") from exc

    def count(self) -> int:
        if self.filters.source is not None:
            return sum(1 for _ in self.rows())
        return sum(open_parquet(self.path(p)).metadata.num_rows for p in self.partitions())


def _source(row: dict[str, Any]) -> str | None:
    try:
        metadata = json.loads(row["metadata"])
    except (TypeError, ValueError, KeyError) as exc:
        raise SampleError(f"metadata: not valid JSON ({exc})") from exc
    others = metadata.get("others") if isinstance(metadata, dict) else None
    return others.get("source") if isinstance(others, dict) else None


def row_id(metadata: Any) -> str | None:
    """``metadata.others.id`` of a stored row's metadata JSON; None when absent or unreadable (validate says why)."""
    try:
        parsed = json.loads(metadata)
    except (TypeError, ValueError):
        return None
    others = parsed.get("others") if isinstance(parsed, dict) else None
    value = others.get("id") if isinstance(others, dict) else None
    return None if value is None else str(value)
