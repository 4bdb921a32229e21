"""Aguvis: the documented stage-1/stage-2 records, read back from the written dataset."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.pngs import png

from cua_data import DatasetReader, LiteSample, run_conversion

DOC = "datasets/aguvis/source_format_examples.from_cua-lite_doc.json"


def rows(root: Path) -> dict[str, LiteSample]:
    return {str(sample.metadata.id): sample for sample in DatasetReader(root)}


def records(shared_fixtures: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((shared_fixtures / DOC).read_text())
    return doc


def test_fixture_folder_as_is_counts_the_missing_images(shared_fixtures: Path, tmp_path: Path) -> None:
    report = run_conversion("aguvis", shared_fixtures / "datasets/aguvis", tmp_path / "out")
    # The doc file holds one stage-1 record ("screenshot.jpg") and one stage-2 step ("<ep_id>_<step>.jpg"),
    # neither image ships with the fixtures; the YAMLs and the PNG are not records.
    assert report["records"] == 2
    assert report["samples"] == 0
    assert report["skipped"] == {"missing image": 2}
    assert report["unmapped_actions"] == {}


def test_documented_records_with_their_images(shared_fixtures: Path, tmp_path: Path) -> None:
    doc = records(shared_fixtures)
    src = tmp_path / "src"
    src.mkdir()
    (src / "ricosca.json").write_text(json.dumps([doc["stage1_record"]]))
    (src / "android_control.json").write_text(json.dumps([doc["stage2_record"]]))
    phone = shared_fixtures / "datasets/aguvis/AndroidControl.png"  # 1080 x 2400
    (src / "ricosca/images").mkdir(parents=True)
    (src / "android_control/images").mkdir(parents=True)
    shutil.copy(phone, src / "ricosca/images/screenshot.jpg")
    shutil.copy(phone, src / "android_control/images/<ep_id>_<step>.jpg")

    report = run_conversion("aguvis", src, tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (2, 2, {})
    assert report["written"]["images_written"] == 1
    assert report["written"]["images_deduplicated"] == 1  # the same screenshot twice, stored once
    got = rows(tmp_path / "out")

    grounding = got["aguvis_ricosca_0_0"]
    assert (grounding.metadata.platform, grounding.metadata.task_type) == ("mobile", "grounding.action")
    assert grounding.messages[0]["content"] == [
        {"type": "image", "index": 0},
        {"type": "text", "text": "Click on the search bar"},
    ]
    call = grounding.messages[1]["tool_calls"][0]["function"]
    # pyautogui.click(x=0.8018, y=0.6183) -> 801.8, 618.3 -> [802, 618]
    assert call == {
        "name": "mobile",
        "arguments": {"actions": [{"action": "tap", "coordinate": [802, 618], "clicks": 1}]},
    }
    others = grounding.metadata.others
    assert others["source"] == "xlangai/aguvis-stage1"
    assert others["resolution"] == [1080, 2400]
    assert others["os"] == "android"
    stored = tmp_path / "out/images" / grounding.images[0].split("/images/")[1]
    assert stored.read_bytes() == phone.read_bytes()

    use = got["aguvis_android_control_0"]
    assert (use.metadata.platform, use.metadata.task_type) == ("mobile", "use")
    assert use.metadata.others["source"] == "xlangai/aguvis-stage2"
    assert use.messages[0]["content"][1] == {"type": "text", "text": "<goal>"}  # the doc's placeholder goal
    step = use.messages[1]
    assert step["content"] == [{"type": "action_description", "text": "Go back to the previous screen"}]
    assert step["tool_calls"][0]["function"]["arguments"] == {
        "actions": [{"action": "system_button", "button": "Back"}]
    }
    assert len(use.messages) == 2 and len(use.images) == 1  # no terminator: ends on the unanswered call
    assert (tmp_path / "out/mobile/use/train/android_control.parquet").is_file()


def test_stage1_yaml_images_folder_and_platform(shared_fixtures: Path, tmp_path: Path) -> None:
    doc = records(shared_fixtures)
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(shared_fixtures / "datasets/aguvis/stage1.yaml", src / "stage1.yaml")
    (src / "seeclick.json").write_text(json.dumps([doc["stage1_record"]]))
    png(src / "seeclick/seeclick_web_imgs/screenshot.jpg", (1280, 720), (1, 2, 3))  # stage1.yaml's folder
    report = run_conversion("aguvis", src, tmp_path / "out")
    assert report["samples"] == 1
    (sample,) = DatasetReader(tmp_path / "out", platform="browser", task_type="grounding.action", variant="seeclick")
    assert sample.messages[1]["tool_calls"][0]["function"] == {
        "name": "computer",
        "arguments": {"actions": [{"action": "click", "coordinate": [802, 618]}]},
    }
    assert sample.metadata.others["os"] is None


def step(goal: str, image: str, history: str, description: str, code: str) -> dict[str, Any]:
    """A stage-2 step shaped exactly like the documented record."""
    return {
        "image": image,
        "conversations": [
            {"from": "system", "value": "..."},
            {"from": "human", "value": f"<image>\nInstruction: {goal}\n\nPrevious actions:\n{history}"},
            {"from": "gpt", "value": f"Action: {description}\n"},
            {"from": "gpt", "value": code},
        ],
    }


def test_stage2_steps_join_into_an_episode(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    steps = [
        step("Open settings", "ep7_0.png", "None", "Tap settings", "pyautogui.click(x=0.5, y=0.25)"),
        step("Open settings", "ep7_1.png", "Tap settings", "Give up", "terminate(status='failure')"),
        step("Open mail", "ep8_0.png", "None", "Go home", "mobile.home()"),
        step("Open mail", "ep8_1.png", "Go home", "Find it", "pyautogui.locateOnScreen('mail.png')"),
    ]
    (src / "aitw-l1.json").write_text(json.dumps(steps))
    for n, name in enumerate(["ep7_0.png", "ep7_1.png", "ep8_0.png", "ep8_1.png"]):
        png(src / "aitw-l1/images" / name, (540, 960), (n, 0, 0))
    report = run_conversion("aguvis", src, tmp_path / "out")
    assert report["records"] == 4
    assert report["samples"] == 1
    assert report["skipped"] == {"unmapped action": 2}  # both steps of episode 8
    assert report["unmapped_actions"] == {"pyautogui.locateOnScreen": 1}
    (sample,) = DatasetReader(tmp_path / "out")
    assert sample.metadata.id == "aguvis_aitw-l1_0"
    assert [m["role"] for m in sample.messages] == ["user", "assistant", "tool", "assistant"]
    assert sample.messages[1]["tool_calls"][0]["function"]["arguments"]["actions"] == [
        {"action": "tap", "coordinate": [500, 250], "clicks": 1}
    ]
    assert sample.messages[2]["content"] == [{"type": "image", "index": 1}]
    assert sample.messages[3]["content"] == [{"type": "text", "text": "Done."}]
    assert sample.metadata.others["terminate_status"] == "failure"  # not a tool call, kept in metadata
    assert len(sample.images) == 2


@pytest.mark.parametrize(
    ("code", "form"),
    [
        ("pyautogui.locateOnScreen('x.png')", "pyautogui.locateOnScreen"),
        ("pyautogui.click(x=eval('1'))", "pyautogui.click: non-literal argument"),
    ],
)
def test_stage1_unmapped_code_is_counted(tmp_path: Path, code: str, form: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    record = {
        "image": "a.png",
        "conversations": [{"from": "human", "value": "<image>\nDo it"}, {"from": "gpt", "value": code}],
    }
    (src / "omniact.json").write_text(json.dumps([record]))
    png(src / "omniact/images/a.png", (100, 100), (9, 9, 9))
    report = run_conversion("aguvis", src, tmp_path / "out")
    assert report["samples"] == 0
    assert report["skipped"] == {"unmapped action": 1}
    assert report["unmapped_actions"] == {form: 1}
