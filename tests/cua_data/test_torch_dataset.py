"""cua_data.torch_dataset: map-style and streaming Datasets, DataLoader workers, transforms, collate."""

from __future__ import annotations

import io
import pickle
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

torch = pytest.importorskip("torch")

from torch.utils.data import DataLoader  # noqa: E402

from cua_data import DatasetReader, LiteSample  # noqa: E402
from cua_data.errors import StoreError  # noqa: E402
from cua_data.torch_dataset import (  # noqa: E402
    DatasetSample,
    LiteDataset,
    LiteIterableDataset,
    collate_samples,
    make_collate,
)

# This machine may have fewer cores than the tests' workers; torch warns, the tests mean it.
MANY_WORKERS = pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")
MakeDataset = Callable[..., list[str]]
SIZE = (16, 12)  # width, height of make_dataset's images
# Three partitions of uneven row counts, row groups of 7: many units, none aligned to a worker count.
MIXED = {"platforms": ("desktop", "mobile"), "splits": ("train", "validation", "test"), "row_group_size": 7}


def _ids(batches: Any) -> Counter[str]:
    return Counter(s.metadata.id for batch in batches for s in batch)


def _reader_ids(root: Path, **filters: str) -> Counter[str]:
    return Counter(s.metadata.id for s in DatasetReader(root, **filters))


@pytest.fixture
def mixed(tmp_path: Path, make_dataset: MakeDataset) -> Path:
    root = tmp_path / "Mixed"
    make_dataset(root, 101, sources=("a", "b", "c"), **MIXED)
    return root


# -- map-style ----------------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("shuffle", [False, True])
def test_map_style_gives_the_readers_rows_with_and_without_workers(mixed: Path, workers: int, shuffle: bool) -> None:
    dataset = LiteDataset(mixed)
    assert len(dataset) == 101 == DatasetReader(mixed).count()
    loader = DataLoader(dataset, batch_size=8, shuffle=shuffle, num_workers=workers, collate_fn=collate_samples)
    assert _ids(loader) == _reader_ids(mixed)


def test_map_style_order_and_locations_follow_the_files(mixed: Path) -> None:
    dataset = LiteDataset(mixed)
    assert [dataset[i].metadata.id for i in range(len(dataset))] == [s.metadata.id for s in DatasetReader(mixed)]
    rows = list(DatasetReader(mixed).rows())
    for i in (0, 6, 7, 50, len(dataset) - 1):
        partition, number, raw = rows[i]
        path, group, offset = dataset.location(i)
        assert path == mixed / partition.relpath()
        assert group * 7 + offset == number  # row groups of 7
        assert dataset.raw_row(i) == raw
        assert dataset[i].where == f"{path} row {number}"
    assert dataset[-1] == dataset[len(dataset) - 1]
    with pytest.raises(IndexError, match="out of range"):
        dataset[len(dataset)]


def test_the_row_group_cache_is_bounded(mixed: Path) -> None:
    dataset = LiteDataset(mixed, cache_row_groups=2)
    for i in range(len(dataset)):
        dataset[i]
        assert len(dataset._cache) <= 2


def test_a_used_dataset_pickles_without_its_open_files(mixed: Path) -> None:
    dataset = LiteDataset(mixed)
    first = dataset[0]
    assert dataset._files and dataset._cache
    copy = pickle.loads(pickle.dumps(dataset))
    assert not copy._files and not copy._cache
    assert copy[0] == first and len(copy) == len(dataset)


@pytest.mark.slow
def test_spawned_workers_read_both_kinds(mixed: Path) -> None:
    mapped = LiteDataset(mixed)
    mapped[0]  # open files and fill the cache in the parent first
    streamed = LiteIterableDataset(mixed)
    for dataset in (mapped, streamed):
        loader = DataLoader(
            dataset, batch_size=16, num_workers=2, multiprocessing_context="spawn", collate_fn=collate_samples
        )
        assert _ids(loader) == _reader_ids(mixed)


# -- streaming ----------------------------------------------------------------------------------


@MANY_WORKERS
@pytest.mark.parametrize("workers", [0, 1, 2, 3])
def test_iterable_workers_read_each_row_exactly_once(mixed: Path, workers: int) -> None:
    dataset = LiteIterableDataset(mixed)
    assert dataset.num_row_groups > 3
    loader = DataLoader(dataset, batch_size=5, num_workers=workers, collate_fn=make_collate())
    seen = _ids(loader)
    assert set(seen.values()) == {1}
    assert seen == _reader_ids(mixed)


def test_iterable_without_workers_keeps_file_order(mixed: Path) -> None:
    assert [s.metadata.id for s in LiteIterableDataset(mixed)] == [s.metadata.id for s in DatasetReader(mixed)]


@MANY_WORKERS
def test_more_workers_than_row_groups(tmp_path: Path, make_dataset: MakeDataset) -> None:
    make_dataset(tmp_path, 5, row_group_size=4)  # two row groups
    loader = DataLoader(LiteIterableDataset(tmp_path), batch_size=2, num_workers=3, collate_fn=collate_samples)
    assert _ids(loader) == Counter(f"row-{n}" for n in range(5))


# -- filters --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "filters",
    [
        {"platform": "mobile"},
        {"split": "validation"},
        {"platform": "desktop", "split": "test"},
        {"task_type": "grounding.point"},
        {"variant": "extra"},
        {"source": "b"},
        {"platform": "desktop", "source": "c"},
        {"source": "nobody"},
    ],
)
def test_filters_keep_what_the_reader_keeps(tmp_path: Path, make_dataset: MakeDataset, filters: dict[str, str]) -> None:
    make_dataset(tmp_path, 60, sources=("a", "b", "c"), **MIXED)
    make_dataset(tmp_path, 9, start=60, variants=("extra",), task_types=("grounding.point",), row_group_size=4)
    want = _reader_ids(tmp_path, **filters)
    mapped = LiteDataset(tmp_path, **filters)
    assert len(mapped) == sum(want.values())
    assert Counter(mapped[i].metadata.id for i in range(len(mapped))) == want
    loader = DataLoader(
        LiteIterableDataset(tmp_path, **filters), batch_size=4, num_workers=2, collate_fn=collate_samples
    )
    assert _ids(loader) == want
    if "source" in filters:
        assert all(mapped[i].metadata.source == filters["source"] for i in range(len(mapped)))


# -- items, transforms and collate ------------------------------------------------------------------


def test_items_are_lite_samples_with_lazily_decoded_images(tmp_path: Path, make_dataset: MakeDataset) -> None:
    make_dataset(tmp_path, 4, images_per_row=2)
    item = LiteDataset(tmp_path)[1]
    assert isinstance(item, DatasetSample) and isinstance(item, LiteSample)
    assert all(isinstance(ref, str) for ref in item.images)  # store paths until asked
    image = item.load_image(1)
    assert image.size == SIZE and image.mode == "RGB"
    stored = (tmp_path / "images" / item.images[1].split("images/")[1]).read_bytes()
    with Image.open(io.BytesIO(stored)) as expected:  # the image decodes to the stored pixels
        assert image.tobytes() == expected.convert("RGB").tobytes()
    assert [im.size for im in item.load_images()] == [SIZE, SIZE]
    assert LiteDataset(tmp_path, image_mode="L")[0].load_image(0).mode == "L"


def _to_tensors(sample: DatasetSample) -> dict[str, Any]:
    """What a model adapter's transform does: pixels as a CHW float tensor, plus a label."""
    image = sample.load_image(0)
    pixels = torch.frombuffer(bytearray(image.tobytes()), dtype=torch.uint8)
    pixels = pixels.view(image.height, image.width, 3).permute(2, 0, 1).float() / 255
    x, y = sample.messages[1]["tool_calls"][0]["function"]["arguments"]["actions"][0]["coordinate"]
    return {"pixels": pixels, "target": torch.tensor([x, y], dtype=torch.float32), "id": sample.metadata.id}


class _StackingAdapter:
    def collate(self, items: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "pixels": torch.stack([item["pixels"] for item in items]),
            "target": torch.stack([item["target"] for item in items]),
            "ids": [item["id"] for item in items],
        }


@pytest.mark.parametrize("kind", [LiteDataset, LiteIterableDataset])
def test_transform_and_adapter_collate_make_tensors(tmp_path: Path, make_dataset: MakeDataset, kind: type) -> None:
    make_dataset(tmp_path, 20, row_group_size=8)
    dataset = kind(tmp_path, transform=_to_tensors)
    loader = DataLoader(dataset, batch_size=6, num_workers=2, collate_fn=make_collate(_StackingAdapter()))
    batches = list(loader)
    assert next(b["pixels"].shape for b in batches if len(b["ids"]) == 6) == (6, 3, SIZE[1], SIZE[0])
    assert sum(len(b["ids"]) for b in batches) == 20
    assert all(b["pixels"].dtype == torch.float32 and b["target"].shape == (len(b["ids"]), 2) for b in batches)
    targets = {i: t.tolist() for b in batches for i, t in zip(b["ids"], b["target"], strict=True)}
    assert targets["row-7"] == [7.0, 500.0]


def test_default_collate_is_a_list_of_samples(tmp_path: Path, make_dataset: MakeDataset) -> None:
    make_dataset(tmp_path, 3)
    assert make_collate() is collate_samples
    batch = next(iter(DataLoader(LiteDataset(tmp_path), batch_size=3, collate_fn=make_collate())))
    assert isinstance(batch, list) and len(batch) == 3 and isinstance(batch[0], DatasetSample)


# -- errors and optional torch ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", [LiteDataset, LiteIterableDataset])
def test_a_missing_image_is_named_when_it_is_asked_for(tmp_path: Path, make_dataset: MakeDataset, kind: type) -> None:
    make_dataset(tmp_path, 3)
    item = next(iter(kind(tmp_path)))
    path = tmp_path / "images" / item.images[0].split("images/")[1]
    path.unlink()
    item = next(iter(kind(tmp_path)))  # reading the row needs no image
    with pytest.raises(StoreError, match="is missing") as caught:
        item.load_image(0)
    assert str(path) in str(caught.value) and "row 0" in str(caught.value)


def test_a_corrupt_image_is_named(tmp_path: Path, make_dataset: MakeDataset) -> None:
    make_dataset(tmp_path, 1)
    item = LiteDataset(tmp_path)[0]
    path = tmp_path / "images" / item.images[0].split("images/")[1]
    path.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(StoreError, match="not a decodable image") as caught:
        item.load_image(0)
    assert str(path) in str(caught.value)


def test_an_empty_or_missing_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert len(LiteDataset(tmp_path / "empty")) == 0
    assert list(LiteIterableDataset(tmp_path / "empty")) == []
    with pytest.raises(StoreError, match="no such dataset folder"):
        LiteDataset(tmp_path / "absent")


def test_importing_cua_data_does_not_import_torch() -> None:
    code = "import sys, cua_data, cua_data.reader; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
