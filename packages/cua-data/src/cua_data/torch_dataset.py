"""torch Datasets over a dataset folder: map-style and streaming, both safe with DataLoader workers.

Import it explicitly (``from cua_data.torch_dataset import LiteDataset``): ``import cua_data`` never
imports torch. Items are :class:`DatasetSample` — a LiteSample whose images are decoded only when
asked (``sample.load_image(i)``) — or whatever ``transform(sample)`` returns; the transform is where
a model adapter turns a row into tensors, and ``make_collate(adapter)`` is where it batches them.

- :class:`LiteDataset` (map-style) indexes the rows at construction from Parquet footers only
  (partition file, row group, offset) and reads a row group when one of its rows is asked for,
  keeping a few in a small LRU cache per process. Files are opened lazily in each process, so the
  dataset pickles to spawned workers. Shuffled access reads one row group per miss: row groups
  are ~1024 rows, so a fully random order over a large dataset reads far more than it keeps.
- :class:`LiteIterableDataset` streams row groups in order; DataLoader workers take every n-th
  (partition, row group) unit, so no row is read twice or missed.

Filters are :class:`~cua_data.DatasetReader`'s: platform, task type, split and variant choose
files; ``source`` needs each row's metadata (the map-style index reads only that column for it).
"""

from __future__ import annotations

import io
import json
import os
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq
import torch.utils.data
from PIL import Image

from cua_data.errors import SampleError, StoreError
from cua_data.images import ImageStore
from cua_data.reader import DatasetReader, open_parquet
from cua_data.schema import LiteSample

__all__ = [
    "CollateAdapter",
    "DatasetSample",
    "ImageLoader",
    "LiteDataset",
    "LiteIterableDataset",
    "Transform",
    "collate_samples",
    "make_collate",
]

Transform = Callable[["DatasetSample"], Any]


class ImageLoader:
    """Reads and decodes a dataset's images: ``loader(ref)`` is a PIL image, converted to ``mode``
    (``None`` keeps the stored mode). Holds only the folder, so it pickles to workers."""

    def __init__(self, root: Path | str, mode: str | None = "RGB") -> None:
        self.store = ImageStore(Path(root))
        self.mode = mode

    def path(self, ref: str) -> Path:
        return self.store.path(ref)

    def __call__(self, ref: str | bytes) -> Image.Image:
        if not isinstance(ref, str | bytes):  # e.g. a hub export's {bytes, path}, read behind the reader's back
            raise StoreError(
                f"image reference {str(ref)[:80]!r} is a {type(ref).__name__}, not a store path: is this a hub "
                "export? Run `cua-data import-hub HUB DST` and load DST"
            )
        data = ref if isinstance(ref, bytes) else self.store.get(ref)  # StoreError names the path
        try:
            with Image.open(io.BytesIO(data)) as opened:
                image = opened.convert(self.mode) if self.mode and opened.mode != self.mode else opened.copy()
        except (OSError, ValueError) as exc:  # PIL.UnidentifiedImageError is an OSError
            where = self.store.path(ref) if isinstance(ref, str) else "image bytes"
            raise StoreError(f"{where}: not a decodable image ({exc})") from exc
        return image


@dataclass
class DatasetSample(LiteSample):
    """A LiteSample read from a dataset folder; its images (store paths) decode on demand."""

    where: str = field(default="", compare=False)  # "<partition file> row <n>", for error messages
    loader: ImageLoader | None = field(default=None, repr=False, compare=False)

    def load_image(self, index: int) -> Image.Image:
        """Decode image ``index`` (decoded anew on each call; keep the result if you need it twice)."""
        if self.loader is None:
            raise StoreError(f"{self.where or 'sample'}: no image loader; read it through a LiteDataset")
        ref = self.images[index]
        try:
            return self.loader(ref)
        except StoreError as exc:
            raise StoreError(f"{self.where}: images[{index}]: {exc}") from exc

    def load_images(self) -> list[Image.Image]:
        return [self.load_image(i) for i in range(len(self.images))]


# -- collate ------------------------------------------------------------------------------------


class CollateAdapter(Protocol):
    """What make_collate needs of a model adapter: a batch from a list of (transformed) items."""

    def collate(self, items: list[Any]) -> Any: ...


def collate_samples(items: list[Any]) -> list[Any]:
    """The default collate: samples are ragged (messages, image counts), so a batch is their list."""
    return list(items)


def make_collate(adapter: CollateAdapter | None = None) -> Callable[[list[Any]], Any]:
    """``collate_fn`` for a DataLoader: the adapter's ``collate``, or :func:`collate_samples`.

    The result pickles when the adapter does, so it works with spawned workers too.
    """
    return collate_samples if adapter is None else adapter.collate


# -- shared reading ----------------------------------------------------------------------------


def _row_source(metadata: Any) -> str | None:
    """``metadata.others.source`` of a stored row's metadata JSON (DatasetReader's source filter)."""
    try:
        parsed = json.loads(metadata)
    except (TypeError, ValueError) as exc:
        raise SampleError(f"metadata: not valid JSON ({exc})") from exc
    others = parsed.get("others") if isinstance(parsed, dict) else None
    return others.get("source") if isinstance(others, dict) else None


def _read_group(parquet: pq.ParquetFile, path: Path, group: int, columns: list[str] | None = None) -> pa.Table:
    try:
        return parquet.read_row_group(group, columns=columns)
    except (pa.ArrowException, OSError) as exc:
        raise StoreError(f"{path}: reading row group {group} failed ({exc}); the file is truncated or corrupt") from exc


def _sample(row: dict[str, Any], where: str, loader: ImageLoader) -> DatasetSample:
    base = LiteSample.from_row(row, where)
    return DatasetSample(base.metadata, base.messages, base.images, base.rl, where=where, loader=loader)


@dataclass(frozen=True)
class _Unit:
    """One row group of one partition file: the unit of reading, caching and worker sharding."""

    file: int  # index into the dataset's paths
    group: int  # row group in that file
    first_row: int  # row number, in its file, of the group's first row
    rows: int


def _units(paths: list[Path]) -> list[_Unit]:
    """Every row group of ``paths``, from the files' footers only."""
    units = []
    for f, path in enumerate(paths):
        meta = open_parquet(path).metadata
        first = 0
        for g in range(meta.num_row_groups):
            rows = meta.row_group(g).num_rows
            if rows:
                units.append(_Unit(f, g, first, rows))
            first += rows
    return units


# -- map-style -----------------------------------------------------------------------------------


class _CachedGroup:
    """A row group in the LRU cache: Arrow data, converted to Python rows all at once when a second
    of its rows is asked for (in-order reads convert each group once, shuffled ones only the rows
    they take)."""

    __slots__ = ("hits", "rows", "table")

    def __init__(self, table: pa.Table) -> None:
        self.table = table
        self.rows: list[dict[str, Any]] | None = None
        self.hits = 0

    def row(self, offset: int) -> dict[str, Any]:
        if self.rows is None:
            self.hits += 1
            if self.hits < 2:
                one: list[dict[str, Any]] = self.table.slice(offset, 1).to_pylist()
                return one[0]
            self.rows = self.table.to_pylist()
        return self.rows[offset]


class LiteDataset(torch.utils.data.Dataset[Any]):
    """Rows of a dataset folder by index; ``len`` is the number of rows the filters keep."""

    def __init__(
        self,
        root: Path | str,
        *,
        platform: str | None = None,
        task_type: str | None = None,
        split: str | None = None,
        variant: str | None = None,
        source: str | None = None,
        transform: Transform | None = None,
        image_mode: str | None = "RGB",
        cache_row_groups: int = 4,
    ) -> None:
        reader = DatasetReader(
            root, platform=platform, task_type=task_type, split=split, variant=variant, source=source
        )
        self.root = reader.root
        self.transform = transform
        self.loader = ImageLoader(self.root, image_mode)
        self.cache_row_groups = max(1, cache_row_groups)
        self.paths = [reader.path(p) for p in reader.partitions()]
        self._units = _units(self.paths)
        # Without a source filter a row's place follows from the row-group sizes; with one, the
        # index lists the kept rows (read from the metadata column alone).
        self._starts: list[int] = []
        self._row_unit = array("q")
        self._row_offset = array("q")
        self._by_row = source is not None
        if source is None:
            total = 0
            for unit in self._units:
                self._starts.append(total)
                total += unit.rows
            self._len = total
        else:
            self._index_source(source)
            self._len = len(self._row_unit)
        self._reset()

    def _index_source(self, source: str) -> None:
        opened: dict[int, pq.ParquetFile] = {}
        for u, unit in enumerate(self._units):
            path = self.paths[unit.file]
            parquet = opened.get(unit.file)
            if parquet is None:
                parquet = opened[unit.file] = open_parquet(path)
            column = _read_group(parquet, path, unit.group, ["metadata"]).column("metadata").to_pylist()
            for offset, metadata in enumerate(column):
                try:
                    kept = _row_source(metadata) == source
                except SampleError as exc:
                    raise SampleError(f"{path} row {unit.first_row + offset}: {exc}") from exc
                if kept:
                    self._row_unit.append(u)
                    self._row_offset.append(offset)

    # Files and cached row groups belong to one process: a worker opens its own.
    def _reset(self) -> None:
        self._pid = os.getpid()
        self._files: dict[int, pq.ParquetFile] = {}
        self._cache: OrderedDict[int, _CachedGroup] = OrderedDict()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for key in ("_files", "_cache", "_pid"):
            state.pop(key)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset()

    def __len__(self) -> int:
        return self._len

    def location(self, index: int) -> tuple[Path, int, int]:
        """(partition file, row group, offset in the group) of row ``index``."""
        unit, offset = self._locate(index)
        return self.paths[self._units[unit].file], self._units[unit].group, offset

    def _locate(self, index: int) -> tuple[int, int]:
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError(f"row {index} is out of range: the dataset has {self._len} rows")
        if self._by_row:
            return self._row_unit[index], self._row_offset[index]
        unit = bisect_right(self._starts, index) - 1
        return unit, index - self._starts[unit]

    def _row(self, u: int, offset: int) -> dict[str, Any]:
        """Row ``offset`` of unit ``u``, from the cache or its row group read now (shared: do not mutate)."""
        if self._pid != os.getpid():  # forked after files were opened: start afresh
            self._reset()
        group = self._cache.get(u)
        if group is not None:
            self._cache.move_to_end(u)
            return group.row(offset)
        unit = self._units[u]
        path = self.paths[unit.file]
        parquet = self._files.get(unit.file)
        if parquet is None:
            parquet = self._files[unit.file] = open_parquet(path)
        group = self._cache[u] = _CachedGroup(_read_group(parquet, path, unit.group))
        while len(self._cache) > self.cache_row_groups:
            self._cache.popitem(last=False)
        return group.row(offset)

    def raw_row(self, index: int) -> dict[str, Any]:
        """Row ``index`` as stored (JSON strings for messages and metadata)."""
        row = self._row(*self._locate(index))
        return {key: list(value) if isinstance(value, list) else value for key, value in row.items()}

    def sample(self, index: int) -> DatasetSample:
        """Row ``index`` as a DatasetSample, before the transform."""
        u, offset = self._locate(index)
        unit = self._units[u]
        where = f"{self.paths[unit.file]} row {unit.first_row + offset}"
        return _sample(self._row(u, offset), where, self.loader)

    def __getitem__(self, index: int) -> Any:
        item = self.sample(index)
        return item if self.transform is None else self.transform(item)


# -- streaming -------------------------------------------------------------------------------------


class LiteIterableDataset(torch.utils.data.IterableDataset[Any]):
    """Rows of a dataset folder in file order, one row group at a time.

    With DataLoader workers, worker ``k`` of ``n`` reads row groups ``k, k + n, k + 2n, ...`` of the
    list of every kept (partition, row group), so together they read each row exactly once.
    """

    def __init__(
        self,
        root: Path | str,
        *,
        platform: str | None = None,
        task_type: str | None = None,
        split: str | None = None,
        variant: str | None = None,
        source: str | None = None,
        transform: Transform | None = None,
        image_mode: str | None = "RGB",
    ) -> None:
        reader = DatasetReader(
            root, platform=platform, task_type=task_type, split=split, variant=variant, source=source
        )
        self.root = reader.root
        self.source = source
        self.transform = transform
        self.loader = ImageLoader(self.root, image_mode)
        self.paths = [reader.path(p) for p in reader.partitions()]
        self._units = _units(self.paths)

    @property
    def num_row_groups(self) -> int:
        return len(self._units)

    def _shard(self) -> list[_Unit]:
        info = torch.utils.data.get_worker_info()
        if info is None:
            return self._units
        return self._units[info.id :: info.num_workers]

    def __iter__(self) -> Iterator[Any]:
        opened: dict[int, pq.ParquetFile] = {}
        for unit in self._shard():
            path = self.paths[unit.file]
            parquet = opened.get(unit.file)
            if parquet is None:
                opened.clear()  # units come file by file: one open file at a time
                parquet = opened[unit.file] = open_parquet(path)
            rows: list[dict[str, Any]] = _read_group(parquet, path, unit.group).to_pylist()
            for offset, row in enumerate(rows):
                where = f"{path} row {unit.first_row + offset}"
                if self.source is not None:
                    try:
                        if _row_source(row.get("metadata")) != self.source:
                            continue
                    except SampleError as exc:
                        raise SampleError(f"{where}: {exc}") from exc
                item = _sample(row, where, self.loader)
                yield item if self.transform is None else self.transform(item)
