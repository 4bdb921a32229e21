"""ScaleCUA: the README's SFT lines and the documented navigation records, read back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from support.pngs import jsonl as lines
from support.pngs import png

from cua_data import DatasetReader, run_conversion

SCALECUA = "datasets/scalecua"
NAVIGATION = "navigation_examples.from_cua-lite_doc.jsonl"
README = "internvl_sft_annotation.readme_example.jsonl"


def test_fixture_folder_as_is(shared_fixtures: Path, tmp_path: Path) -> None:
    report = run_conversion("scalecua", shared_fixtures / SCALECUA, tmp_path / "out")
    # train_meta.json's one entry points at a placeholder path; 2 README lines + 2 navigation lines.
    assert report["records"] == 5
    assert report["samples"] == 0
    assert report["skipped"] == {
        "meta entry: annotation file missing": 1,
        "unmapped action": 2,  # both README steps: their trajectory opens with open_app
        "missing image": 2,  # the two navigation records (each opens its own trajectory)
    }
    assert report["unmapped_actions"] == {"open_app": 1}


def test_navigation_records_with_their_screenshot(shared_fixtures: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(shared_fixtures / SCALECUA / NAVIGATION, src / NAVIGATION)
    png(src / "settings/free_task_20250605_101622/images/20250605_101625_1.png", (1920, 1080), (3, 4, 5))
    report = run_conversion("scalecua", src, tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (2, 2, {})
    assert report["written"]["images_written"] == 1
    assert report["written"]["images_deduplicated"] == 1
    got = {s.metadata.id: s for s in DatasetReader(tmp_path / "out", platform="desktop", task_type="use")}
    stem = "navigation_examples.from_cua-lite_doc"
    plain, planning = got[f"{stem}_traj_0"], got[f"{stem}_traj_1"]
    assert plain.messages[0]["content"][1]["text"] == "Turn on get notifications in system settings."
    # click(x=0.0099, y=0.9833) -> [10, 983]
    assert plain.messages[1]["tool_calls"][0]["function"] == {
        "name": "computer",
        "arguments": {"actions": [{"action": "click", "coordinate": [10, 983]}]},
    }
    assert [p["type"] for p in plain.messages[1]["content"]] == ["action_description"]
    assert [p["type"] for p in planning.messages[1]["content"]] == ["inline_reasoning", "action_description"]
    others = plain.metadata.others
    assert (others["source"], others["source_id"], others["resolution"]) == (
        "OpenGVLab/ScaleCUA-Data",
        stem,
        [1920, 1080],
    )


def test_readme_trajectory_joins_steps(shared_fixtures: Path, tmp_path: Path) -> None:
    records = lines(shared_fixtures / SCALECUA / README)
    # open_app has no unified action; replace it to exercise the two-step join of the real records.
    records[0]["conversations"][1]["value"] = records[0]["conversations"][1]["value"].replace(
        "open_app(app_name='Cantook')", "click(x=0.5, y=0.5)"
    )
    src = tmp_path / "src"
    src.mkdir()
    (src / "cantook.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    png(src / "android_lab_data_Cantook/cantook_5/images/home_screen.png", (1440, 3120), (1, 1, 1))
    png(src / "android_lab_data_Cantook/cantook_5/images/001_start_1749723405576.png", (1440, 3120), (2, 2, 2))
    report = run_conversion("scalecua", src, tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (2, 1, {})
    (sample,) = DatasetReader(tmp_path / "out", platform="mobile", task_type="use")  # portrait screen -> mobile
    assert sample.messages[0]["content"][1]["text"] == "Could you check my reading progress for War and Peace?"
    assert [m["role"] for m in sample.messages] == ["user", "assistant", "tool", "assistant"]
    second = sample.messages[3]["tool_calls"][0]["function"]["arguments"]["actions"]
    assert second == [{"action": "tap", "coordinate": [367, 919], "clicks": 1}]  # x=0.3674, y=0.9192
    assert sample.messages[3]["content"][0]["type"] == "inline_reasoning"
    assert len(sample.images) == 2


def record(answer: str, image: Any = "shot.png", human: str = "<image>\nWhere?") -> dict[str, Any]:
    """A record of the documented schema (no real grounding line is in the fixtures)."""
    return {
        "image": image,
        "conversations": [{"from": "human", "value": human}, {"from": "gpt", "value": answer}],
        "width": 2560,
        "height": 1440,
    }


def test_grounding_and_understanding_forms(tmp_path: Path) -> None:
    src = tmp_path / "src"
    png(src / "data/shot.png", (2560, 1440), (7, 7, 7))
    png(src / "data/next.png", (2560, 1440), (8, 8, 8))
    annotation = [
        record("<ref>the Save button</ref><box>[[100, 200, 300, 260]]</box>"),
        record("<ref>the Save button</ref><point>[[200, 230]]</point>"),
        record("<action>\nclick(x=0.25, y=0.5)\n</action>"),
        record("A settings window with a sidebar."),
        record("The dialog closed.", image=["shot.png", "next.png"]),
        record("<ref>a</ref><box>[[1, 2, 3, 4]]</box><ref>b</ref><box>[[5, 6, 7, 8]]</box>"),
        record(""),
        record("<action>\nfoo(x=0.1)\n</action>"),
        record("<point>[[1, 2]]</point>", image="absent.png"),
    ]
    (src / "data/windows_mixed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in annotation))
    meta = {"windows_mixed": {"root": "data/", "annotation": "data/windows_mixed.jsonl", "repeat_time": 1}}
    (src / "meta.json").write_text(json.dumps(meta))
    report = run_conversion("scalecua", src, tmp_path / "out")
    assert report["records"] == 9
    assert report["samples"] == 5
    assert report["skipped"] == {
        "several targets in one answer (detect-all)": 1,
        "empty assistant response": 1,
        "unmapped action": 1,
        "missing image": 1,
    }
    assert report["unmapped_actions"] == {"foo": 1}
    got = {s.metadata.task_type: s for s in DatasetReader(tmp_path / "out", variant="windows_mixed")}
    box = got["grounding.bbox"].messages
    assert box[0]["content"][1]["text"] == "Locate the element: the Save button"
    assert box[1]["tool_calls"][0]["function"] == {"name": "bbox", "arguments": {"coordinate": [100, 200, 300, 260]}}
    assert got["grounding.point"].messages[1]["tool_calls"][0]["function"]["arguments"] == {"coordinate": [200, 230]}
    action = got["grounding.action"].messages[1]["tool_calls"][0]["function"]
    assert action["arguments"] == {"actions": [{"action": "click", "coordinate": [250, 500]}]}
    assert got["grounding.action"].metadata.others["os"] == "windows"
    understanding = list(DatasetReader(tmp_path / "out", task_type="understanding"))
    assert sorted(len(s.images) for s in understanding) == [1, 2]
    assert understanding[0].metadata.others["source"] == "zyliu/ScaleCUA-Data-Understanding"
