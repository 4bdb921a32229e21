"""Multimodal-Mind2Web: parquet shards built from the documented fields, read back as use rows.

No real Mind2Web record was available (shared/fixtures/datasets/mind2web holds only CUA-Lite's format
doc, NATIVE_FORMAT.from_cua-lite_doc.md), so every row here is built by the test from the fields
that doc lists: ``annotation_id``, ``target_action_index``, ``target_action_reprs``,
``confirmed_task``, ``operation`` (JSON string), ``pos_candidates`` (JSON strings whose
``attributes`` is a JSON string holding ``bounding_box_rect``), ``website``/``domain``/``subdomain``
and the ``screenshot`` struct. The converter is called directly, so no registration is needed.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from cua_data import ConversionReport, Converted, DatasetReader, DatasetWriter
from cua_data.convert import Converter
from cua_data.converters import mind2web
from cua_data.converters.mind2web import convert_mind2web

SCHEMA = pa.schema(
    [
        ("annotation_id", pa.string()),
        ("target_action_index", pa.string()),
        ("target_action_reprs", pa.string()),
        ("confirmed_task", pa.string()),
        ("operation", pa.string()),
        ("pos_candidates", pa.list_(pa.string())),
        ("website", pa.string()),
        ("domain", pa.string()),
        ("subdomain", pa.string()),
        ("cleaned_html", pa.string()),  # a column the converter must not need
        ("screenshot", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
    ]
)
SIBLING = "another step of the episode was skipped"


def shot(seed: int, size: tuple[int, int] = (1280, 2000)) -> bytes:
    """A full-page screenshot stand-in; distinct seeds give distinct bytes."""
    out = io.BytesIO()
    Image.new("RGB", size, (seed % 256, 7, 9)).save(out, "PNG")
    return out.getvalue()


def candidate(box: tuple[float, float, float, float]) -> str:
    """A pos_candidates entry as the doc describes it: JSON whose ``attributes`` is JSON again."""
    rect = ",".join(str(v) for v in box)
    attributes = json.dumps({"backend_node_id": "136", "bounding_box_rect": rect, "class": "nav-link"})
    return json.dumps({"tag": "a", "attributes": attributes, "is_original_target": True, "backend_node_id": "136"})


def step(
    ident: str, index: int, op: str, value: str = "", box: Any = (100, 50, 200, 40), **extra: Any
) -> dict[str, Any]:
    row = {
        "annotation_id": ident,
        "target_action_index": str(index),
        "target_action_reprs": f"[link]  Step {index} -> {op}",
        "confirmed_task": "Find one-way flights from New York to Toronto.",
        "operation": json.dumps({"op": op, "original_op": op, "value": value}),
        "pos_candidates": [] if box is None else [candidate(box)],
        "website": "kayak",
        "domain": "Travel",
        "subdomain": "Airlines",
        "cleaned_html": "<html>...</html>",
        "screenshot": {"bytes": shot(index + 10 * len(ident)), "path": None},
    }
    return row | extra


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path, row_group_size=3)
    return path


def convert(src: Path) -> tuple[ConversionReport, list[Converted]]:
    report = ConversionReport()
    items = list(convert_mind2web(src, report))
    for item in items:
        item.sample.validate()
    return report, items


def actions(turn: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = turn["tool_calls"][0]["function"]["arguments"]["actions"]
    return found


EPISODE = [  # written out of order: the converter sorts by target_action_index
    step("ep-a", 2, "SELECT", "2 adults", (10, 1500, 100, 20)),
    step("ep-a", 0, "CLICK", box=(100, 50, 200, 40)),
    step("ep-a", 4, "ENTER", box=None),
    step("ep-a", 1, "TYPE", "New York", (600, 901, 300, 50)),
    step("ep-a", 3, "HOVER", box=(1200, 0, 60, 30)),
]


def test_fixture_folder_holds_only_the_format_doc(shared_fixtures: Path) -> None:
    folder = shared_fixtures / "datasets/mind2web"
    assert (folder / "NATIVE_FORMAT.from_cua-lite_doc.md").is_file()
    report, items = convert(folder)
    assert (report.records, items) == (0, [])


@pytest.mark.parametrize("batch", [16, 2])
def test_an_episode_becomes_one_use_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    monkeypatch.setattr(mind2web, "_BATCH", batch)  # 2: the episode spans several record batches
    write(tmp_path / "data/train-00000-of-00001.parquet", EPISODE)
    report, items = convert(tmp_path / "data")
    assert (report.records, dict(report.skipped), dict(report.unmapped_actions)) == (5, {}, {})
    (item,) = items
    assert (item.split, item.variant) == ("train", "mind2web")
    sample = item.sample
    assert (sample.metadata.platform, sample.metadata.task_type) == ("browser", "use")
    others = sample.metadata.others
    assert others["id"] == "mind2web_ep-a" and others["source_id"] == "ep-a"
    assert (others["source"], others["website"], others["domain"]) == ("osunlp/Multimodal-Mind2Web", "kayak", "Travel")
    assert others["resolution"] == [1280, 2000]
    assert sample.messages[0]["content"][1]["text"] == "Find one-way flights from New York to Toronto."
    turns = [m for m in sample.messages if m["role"] == "assistant"]
    # Box centres in page pixels over the 1280 x 2000 screenshot, scaled to [0, 1000].
    assert [actions(t) for t in turns] == [
        [{"action": "click", "coordinate": [156, 35]}],  # centre (200, 70)
        [{"action": "click", "coordinate": [586, 463]}, {"action": "type", "text": "New York"}],
        [{"action": "click", "coordinate": [47, 755]}, {"action": "type", "text": "2 adults", "press_enter": True}],
        [{"action": "mouse_move", "coordinate": [961, 8]}],  # centre (1230, 15)
        [{"action": "key", "keys": ["enter"]}],
    ]
    assert turns[1]["content"] == [{"type": "action_description", "text": "[link]  Step 1 -> TYPE"}]
    # Each step's screenshot is the previous step's result; the last call is unanswered (no end signal).
    assert len(sample.images) == 5 and sample.images[1] == EPISODE[3]["screenshot"]["bytes"]
    assert sample.messages[-1]["role"] == "assistant" and "tool_calls" in sample.messages[-1]
    with DatasetWriter(tmp_path / "out") as writer:
        assert writer.add(sample, split=item.split, variant=item.variant)
    (back,) = DatasetReader(tmp_path / "out", platform="browser", task_type="use", split="train")
    assert back.metadata.id == "mind2web_ep-a"


def test_bad_steps_skip_their_episode_by_name(tmp_path: Path) -> None:
    rows = [
        step("ep-b", 0, "CLICK"),
        step("ep-b", 1, "DRAG"),  # not a documented original_op
        step("ep-c", 0, "CLICK", operation="{not json"),
        step("ep-c", 1, "CLICK", box=(100, 5000, 50, 50)),  # below the 2000-pixel screenshot
        step("ep-c", 2, "TYPE", ""),  # TYPE with no value
        step("ep-d", 0, "CLICK"),
        step("ep-d", 2, "CLICK"),  # step 1 is missing
        step("ep-e", 0, "CLICK", box=None),  # no positive candidate
        step("ep-f", 0, "CLICK", pos_candidates=['{"attributes": "{\\"bounding_box_rect\\": \\"1,2,3\\"}"}']),
        step("ep-g", 0, "HOVER", box=(10, 10, 0, 20)),
        step("", 0, "CLICK"),
        step("ep-h", 0, "CLICK", screenshot=None),
        step("ep-i", 0, "ENTER", box=None, screenshot={"bytes": b"not an image", "path": None}),
        step("ep-ok", 0, "CLICK"),
    ]
    write(tmp_path / "train-00000-of-00001.parquet", rows)
    report, items = convert(tmp_path / "train-00000-of-00001.parquet")
    assert [item.sample.metadata.id for item in items] == ["mind2web_ep-ok"]
    assert report.records == len(rows)
    assert dict(report.skipped) == {
        "unmapped operation": 1,
        SIBLING: 1,
        "malformed operation": 1,
        "target box outside the screenshot": 1,
        "TYPE without a value": 1,
        "incomplete episode: step indices are not 0..n-1": 2,
        "no positive candidate (no target box)": 1,
        "malformed bounding_box_rect": 1,
        "empty target box": 1,
        "row without annotation_id": 1,
        "missing screenshot": 1,
        "corrupt image": 1,
    }
    assert dict(report.unmapped_actions) == {"mind2web.DRAG": 1}
    assert report.examples["target box outside the screenshot"] == "ep-c step 1"


def test_shards_give_splits_and_adjacent_steps_join(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write(data / "test_task-00000-of-00001.parquet", [step("ep-t", 0, "CLICK")])
    # ep-s crosses a shard boundary (adjacent in name order); ep-x is interrupted by another episode.
    write(data / "train-00000-of-00002.parquet", [step("ep-x", 0, "CLICK"), step("ep-s", 0, "CLICK")])
    write(data / "train-00001-of-00002.parquet", [step("ep-s", 1, "ENTER", box=None), step("ep-x", 1, "CLICK")])
    pq.write_table(pa.table({"a": [1, 2]}), data / "other.parquet")
    (data / "broken.parquet").write_bytes(b"not parquet")
    report, items = convert(data)
    placed = {item.sample.metadata.id: (item.split, item.variant) for item in items}
    assert placed == {"mind2web_ep-t": ("test", "mind2web_test_task"), "mind2web_ep-s": ("train", "mind2web")}
    joined = next(item.sample for item in items if item.sample.metadata.id == "mind2web_ep-s")
    assert len(joined.images) == 2
    assert report.records == 1 + 1 + 2 + 4  # the broken file, ep-t, other.parquet's rows, the train rows
    assert dict(report.skipped) == {
        "unreadable parquet": 1,
        "not a Multimodal-Mind2Web shard (documented columns missing)": 2,
        "episode's steps are not adjacent in the shards": 2,
    }


def test_registers_under_its_name() -> None:
    seen: dict[str, tuple[Converter, str]] = {}

    def register(name: str, obj: Converter, /, *, description: str = "", **meta: Any) -> None:
        seen[name] = (obj, description)

    mind2web.cua_data_register_converters(register)
    assert seen["mind2web"][0] is convert_mind2web
    assert "Mind2Web" in seen["mind2web"][1]
