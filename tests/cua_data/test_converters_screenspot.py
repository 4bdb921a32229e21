"""ScreenSpot(-Pro): annotations built from the documented fields, read back as bbox and point rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.pngs import png

from cua_data import DatasetReader, LiteSample, run_conversion


def answer(sample: LiteSample) -> list[Any]:
    coordinate: list[Any] = sample.messages[1]["tool_calls"][0]["function"]["arguments"]["coordinate"]
    return coordinate


def pro_entry(index: int, bbox: list[int], instruction: str) -> dict[str, Any]:
    """The fields eval_screenspot_pro.py reads (shared/fixtures/datasets/screenspot_pro/NATIVE_FORMAT.md)."""
    return {
        "id": f"word_macos_{index}",
        "img_filename": "word_macos/shot.png",
        "img_size": [2000, 1000],
        "bbox": bbox,
        "instruction": instruction,
        "instruction_cn": "",
        "platform": "macos",
        "application": "word",
        "group": "Office",
        "ui_type": "icon",
    }


def test_fixture_folder_holds_no_annotation(shared_fixtures: Path, tmp_path: Path) -> None:
    report = run_conversion("screenspot", shared_fixtures / "datasets/screenspot_pro", tmp_path / "out")
    assert (report["records"], report["samples"]) == (0, 0)


def test_pro_annotations_give_bbox_and_point_rows(shared_fixtures: Path, tmp_path: Path) -> None:
    assert (shared_fixtures / "datasets/screenspot_pro/NATIVE_FORMAT.md").is_file()
    src = tmp_path / "ScreenSpot-Pro"
    entries = [
        pro_entry(0, [100, 200, 300, 260], "bold the selected text"),
        pro_entry(1, [1900, 900, 2100, 1100], "open the zoom menu"),  # leaves the image
        {"img_filename": "word_macos/shot.png", "bbox": [1, 2], "instruction": "broken"},
        pro_entry(3, [10, 10, 20, 20], "absent") | {"img_filename": "word_macos/absent.png"},
    ]
    (src / "annotations").mkdir(parents=True)
    (src / "annotations/word_macos.json").write_text(json.dumps(entries))
    png(src / "images/word_macos/shot.png", (2000, 1000), (10, 20, 30))
    report = run_conversion("screenspot", src, tmp_path / "out")
    assert report["records"] == 4
    assert report["skipped"] == {"malformed annotation (bbox or instruction)": 1, "missing image": 1}
    assert report["samples"] == 3  # entry 1's bbox row is dropped by the writer, its centre is on screen
    assert report["written"]["dropped"] == {"coordinate outside [0, 1000]": 1}
    assert report["written"]["images_written"] == 1
    assert report["written"]["images_deduplicated"] == 2

    boxes = {s.metadata.id: s for s in DatasetReader(tmp_path / "out", task_type="grounding.bbox", split="test")}
    points = {s.metadata.id: s for s in DatasetReader(tmp_path / "out", task_type="grounding.point", split="test")}
    assert set(boxes) == {"screenspot_pro_word_macos_0_bbox"}
    assert set(points) == {"screenspot_pro_word_macos_0_point", "screenspot_pro_word_macos_1_point"}
    box = boxes["screenspot_pro_word_macos_0_bbox"]
    assert box.messages[0]["content"][1] == {"type": "text", "text": "bold the selected text"}
    assert answer(box) == [50, 200, 150, 260]  # [100, 200, 300, 260] on 2000 x 1000
    assert answer(points["screenspot_pro_word_macos_0_point"]) == [100, 230]  # the box centre
    assert answer(points["screenspot_pro_word_macos_1_point"]) == [1000, 1000]
    others = box.metadata.others
    assert (box.metadata.platform, others["os"], others["application"]) == ("desktop", "macos", "word")
    assert (others["source"], others["source_id"]) == ("likaixin/ScreenSpot-Pro", "word_macos_0")


def test_original_screenspot_boxes_are_xywh(tmp_path: Path) -> None:
    src = tmp_path / "ScreenSpot"
    entry = {
        "img_filename": "mobile_1.png",
        "bbox": [42, 1102, 197, 70],  # x, y, w, h as SeeClick ships them
        "instruction": "view the details of the item",
        "data_type": "text",
        "data_source": "shop",
    }
    src.mkdir()
    (src / "screenspot_mobile.json").write_text(json.dumps([entry]))
    png(src / "images/mobile_1.png", (1000, 2000), (1, 1, 1))
    report = run_conversion("screenspot", src / "screenspot_mobile.json", tmp_path / "out")
    assert report["samples"] == 2
    (box,) = DatasetReader(tmp_path / "out", platform="mobile", task_type="grounding.bbox", variant="screenspot")
    assert answer(box) == [42, 551, 239, 586]  # [42, 1102, 239, 1172] on 1000 x 2000
    assert box.metadata.others["source"] == "njucckevin/SeeClick"
