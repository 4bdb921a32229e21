"""Writing LiteSample rows: atomic appends to partitions, deduplicated images, bounded memory.

Each partition being written goes to a partial file beside it (``.<variant>.parquet.tmp-<pid>``),
the old file's row groups streamed in first, and replaces the old file only on commit: a crash
mid-write leaves the previous state readable and no half file visible. Memory holds at most one
row group per open partition, whatever the number of rows. After a commit the folder's
``cua-dataset.json`` marker (see :mod:`cua_data.markers`) records the rows of every partition.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from cua_data.errors import SampleError, StoreError
from cua_data.images import ImageStore
from cua_data.layout import TMP_MARK, Partition, check_partition, partition_path
from cua_data.markers import DATASET_MARKER, count_partitions, layout_of, require_dataset, write_marker
from cua_data.schema import LiteSample

__all__ = ["ROW_SCHEMA", "DatasetWriter", "WriteReport", "write_table"]

ROW_SCHEMA = pa.schema([("images", pa.list_(pa.string())), ("messages", pa.string()), ("metadata", pa.string())])
RL_SCHEMA = ROW_SCHEMA.append(pa.field("rl", pa.string()))
COMPRESSION = "zstd"


@dataclass
class WriteReport:
    rows: Counter[str] = field(default_factory=Counter)  # by partition
    dropped: Counter[str] = field(default_factory=Counter)  # by reason
    images_written: int = 0
    images_deduplicated: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": dict(self.rows),
            "rows_total": sum(self.rows.values()),
            "dropped": dict(self.dropped),
            "images_written": self.images_written,
            "images_deduplicated": self.images_deduplicated,
        }


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_stale(path: Path) -> None:
    """Delete partial files of ``path`` left by writers that were killed (their pid is gone)."""
    for partial in path.parent.glob(f".{path.name}{TMP_MARK}*"):
        pid = partial.name.rsplit(TMP_MARK, 1)[1]
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            partial.unlink(missing_ok=True)
        except (ValueError, PermissionError):
            pass  # not ours to judge: a malformed name, or another user's live process


class _PartitionFile:
    """One partition being rewritten: old row groups, then new rows, into a partial file."""

    def __init__(self, path: Path, with_rl: bool, row_group_size: int) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}")
        self.row_group_size = row_group_size
        self.buffer: list[dict[str, Any]] = []
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(path)
        old = None
        if path.exists():
            try:
                old = pq.ParquetFile(path)
            except (pa.ArrowException, OSError) as exc:
                raise StoreError(f"{path}: cannot append, the existing file is not readable Parquet: {exc}") from exc
            # The canonical schema, not the one read back: Parquet renames a list's item field to
            # "element", and a file appended to would otherwise differ from a fresh one, byte for byte.
            self.schema = RL_SCHEMA if "rl" in old.schema_arrow.names else ROW_SCHEMA
        else:
            self.schema = RL_SCHEMA if with_rl else ROW_SCHEMA
        self.writer = pq.ParquetWriter(self.tmp, self.schema, compression=COMPRESSION)
        if old is not None:
            for i in range(old.num_row_groups):
                try:
                    self.writer.write_table(old.read_row_group(i).cast(self.schema))
                except (pa.ArrowException, OSError) as exc:
                    self.abort()
                    raise StoreError(
                        f"{path}: cannot append, row group {i} is unreadable or off-schema: {exc}"
                    ) from exc

    def add(self, row: dict[str, Any]) -> None:
        if "rl" in row and "rl" not in self.schema.names:
            raise SampleError(f"{self.path}: this partition has no rl column; write RL rows to a variant of their own")
        self.buffer.append(row)
        if len(self.buffer) >= self.row_group_size:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            self.writer.write_table(pa.Table.from_pylist(self.buffer, schema=self.schema))
            self.buffer = []

    def commit(self) -> None:
        self.flush()
        self.writer.close()
        _sync(self.tmp)
        os.replace(self.tmp, self.path)
        _sync(self.path.parent)

    def abort(self) -> None:
        self.buffer = []
        try:
            self.writer.close()
        finally:
            self.tmp.unlink(missing_ok=True)


class DatasetWriter:
    """Adds rows to a dataset folder; nothing is visible until :meth:`close` commits.

    Used as a context manager, an exception aborts: every partition keeps its previous content.
    A hub export is refused: its rows hold image bytes, not store paths. ``dataset`` (the name in new
    image paths) defaults to the one the folder's marker records, else the folder's name.
    """

    def __init__(self, root: Path | str, *, dataset: str | None = None, row_group_size: int = 1024) -> None:
        self.root = Path(root)
        layout = layout_of(self.root)
        if layout.kind == "hub":
            require_dataset(self.root, "convert")  # raises, naming both layouts and the fix
        self.root.mkdir(parents=True, exist_ok=True)
        self.images = ImageStore(self.root, dataset or layout.dataset_name)
        self.row_group_size = row_group_size
        self.report = WriteReport()
        self._open: dict[Partition, _PartitionFile] = {}

    def add(self, sample: LiteSample, *, split: str = "train", variant: str = "default") -> bool:
        """Queue one row; False if it was dropped (coordinates outside [0, 1000]), counted by reason."""
        if sample.metadata.kind != "cua" or sample.metadata.platform is None or sample.metadata.task_type is None:
            raise SampleError("only metadata_kind 'cua' rows have a partition (platform and task type)")
        if sample.out_of_range():
            self.report.dropped["coordinate outside [0, 1000]"] += 1
            return False
        partition = check_partition(sample.metadata.platform, sample.metadata.task_type, split, variant)
        sample.validate(str(partition))
        refs: list[str | bytes] = []
        for image in sample.images:
            if isinstance(image, str):
                refs.append(image)
            else:
                refs.append(self.images.put(image))
        stored = LiteSample(sample.metadata, sample.messages, refs, sample.rl)
        target = self._open.get(partition)
        if target is None:
            target = self._open[partition] = _PartitionFile(
                partition_path(self.root, partition), sample.rl is not None, self.row_group_size
            )
        target.add(stored.to_row())
        self.report.rows[str(partition)] += 1
        return True

    def close(self) -> WriteReport:
        """Commit every partition (each atomically) and return what was written and dropped."""
        try:
            for target in self._open.values():
                target.commit()
        except BaseException:
            self.abort()
            raise
        committed = list(self._open)
        self._open.clear()
        if committed:
            self._mark(committed)
        self.report.images_written = self.images.written
        self.report.images_deduplicated = self.images.deduplicated
        return self.report

    def _mark(self, committed: list[Partition]) -> None:
        """Record the committed partitions' rows in the marker, read afresh (another writer may have
        committed other partitions); a folder without one is counted whole."""
        layout = layout_of(self.root)
        if layout.kind == "dataset" and layout.marker is not None:
            counts = dict(layout.marker["partitions"]) | count_partitions(self.root, committed)
        else:
            counts = count_partitions(self.root)
        write_marker(self.root, DATASET_MARKER, layout.dataset_name or self.images.dataset, counts)

    def abort(self) -> None:
        for target in self._open.values():
            target.abort()
        self._open.clear()

    def __enter__(self) -> DatasetWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


def write_table(path: Path, batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> None:
    """Write a whole file atomically, one row group per batch, consuming ``batches`` as they come."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}")
    writer = pq.ParquetWriter(tmp, schema, compression=COMPRESSION)
    try:
        for batch in batches:
            writer.write_table(pa.Table.from_batches([batch], schema=schema))
    except BaseException:
        writer.close()
        tmp.unlink(missing_ok=True)
        raise
    writer.close()
    _sync(tmp)
    os.replace(tmp, path)
