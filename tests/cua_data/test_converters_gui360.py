"""GUI-360: the data card's processed records and the documented raw step, read back."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from support.pngs import png

from cua_core.actions import KeyDown, KeyPress, KeyUp, TypeText, from_pixels
from cua_data import DatasetReader, run_conversion
from cua_data.converters.gui360 import _send_keys

GUI360 = "datasets/gui360"


def load(shared_fixtures: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((shared_fixtures / GUI360 / name).read_text())
    return data


def test_fixture_folder_as_is(shared_fixtures: Path, tmp_path: Path) -> None:
    report = run_conversion("gui360", shared_fixtures / GUI360, tmp_path / "out")
    assert report["records"] == 3
    assert report["samples"] == 0
    # The two processed records' screenshots are not shipped; the raw step is step 2 of 5 alone.
    assert report["skipped"] == {"missing image": 2, "incomplete trajectory: steps missing": 1}


def test_grounding_and_screen_parsing_records(shared_fixtures: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    grounding = load(shared_fixtures, "grounding_resize.example.json")
    parsing = load(shared_fixtures, "screen_parsing.example.json")
    # One control past the right edge (clipped) and one wholly off screen (dropped), as the resize leaves them.
    controls = json.loads(parsing["conversation"][1]["value"])
    controls += [
        {"control_text": "Edge", "control_rect": [1000, 10, 1040, 30]},
        {"control_text": "Gone", "control_rect": [1100, 10, 1200, 30]},
    ]
    parsing["conversation"][1]["value"] = json.dumps(controls)
    (src / "grounding").mkdir(parents=True)
    (src / "parsing").mkdir()
    (src / "grounding/training_data.json").write_text(json.dumps([grounding]))
    (src / "parsing/training_data.json").write_text(json.dumps([parsing]))
    png(src / "grounding/images/excel_4s_1/action_step4.png", (1040, 736), (1, 2, 3))  # "images\\excel_4s_1/..."
    png(src / "parsing/images/word_4s_1486/action_step1.png", (1036, 728), (4, 5, 6))
    report = run_conversion("gui360", src, tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (2, 2, {})
    assert report["unmapped_actions"] == {
        "screen_parsing control_rect clipped to the image": 1,
        "screen_parsing control off screen (dropped)": 1,
    }

    (point,) = DatasetReader(tmp_path / "out", task_type="grounding.point", variant="grounding")
    assert point.metadata.id == "gui360_excel_4s_1_2"
    assert point.messages[0]["content"][1]["text"].startswith("To use the ATAN function as requested, I will enter")
    target = from_pixels(630, 241, 1040, 736)  # <coordinate> [630, 241] </coordinate>
    assert point.messages[1]["tool_calls"][0]["function"] == {
        "name": "point",
        "arguments": {"coordinate": [round(target.x), round(target.y)]},
    }
    assert point.metadata.others["resolution"] == [1040, 736]
    assert point.metadata.others["os"] == "windows"

    (screen,) = DatasetReader(tmp_path / "out", task_type="understanding", variant="screen_parsing")
    assert "normalized to [0, 1000]" in screen.messages[0]["content"][1]["text"]
    answer = json.loads(screen.messages[1]["content"][0]["text"])
    scale = [1000 / 1036, 1000 / 728] * 2
    assert answer[0] == {
        "control_text": "AutoSave",
        "control_rect": [round(v * s) for v, s in zip([50, 17, 161, 46], scale, strict=True)],
    }
    assert answer[2] == {"control_text": "Edge", "control_rect": [round(1000 * 1000 / 1036), 14, 1000, 41]}
    assert [c["control_text"] for c in answer] == ["AutoSave", "Save", "Edge"]


def raw_trajectory(shared_fixtures: Path, src: Path, last_action: dict[str, Any] | None = None) -> None:
    """The documented step as step 1, plus the closing OVERALL_FINISH step the trajectory has."""
    step = load(shared_fixtures, "raw_train_step.from_cua-lite_doc.json")
    step.pop("_note")
    first = copy.deepcopy(step) | {"step_id": 1, "total_steps": 2}
    if last_action is not None:
        first["step"]["action"] = last_action
    finish = copy.deepcopy(first) | {"step_id": 2}
    finish["step"] = finish["step"] | {
        "status": "OVERALL_FINISH",
        "screenshot_clean": "success/excel_4s_1/action_step5.png",
        "action": {"action_type": "", "function": "", "args": {}},
    }
    folder = src / "train/data/excel/in_app/success"
    folder.mkdir(parents=True)
    (folder / "excel_4s_1.jsonl").write_text(json.dumps(first) + "\n" + json.dumps(finish) + "\n")
    png(src / "train/image/excel/in_app/success/excel_4s_1/action_step4.png", (1040, 736), (1, 1, 1))
    png(src / "train/image/excel/in_app/success/excel_4s_1/action_step5.png", (1040, 736), (2, 2, 2))


def test_raw_trajectory_becomes_a_use_row(shared_fixtures: Path, tmp_path: Path) -> None:
    raw_trajectory(shared_fixtures, tmp_path / "src")
    report = run_conversion("gui360", tmp_path / "src", tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (2, 1, {})
    (sample,) = DatasetReader(tmp_path / "out", platform="desktop", task_type="use", variant="excel")
    assert sample.metadata.id == "gui360_excel_4s_1"
    assert sample.messages[0]["content"][1]["text"].startswith("Enable editing and use the ATAN function")
    focus = from_pixels(630.0, 241.5, 1040, 736)
    assert sample.messages[1]["tool_calls"][0]["function"]["arguments"]["actions"] == [
        {"action": "click", "coordinate": [round(focus.x), round(focus.y)]},  # type is target-aware: focus first
        {"action": "key", "keys": ["ctrl", "a"]},  # clear_current_text
        {"action": "type", "text": "=ATAN(1)"},
    ]
    assert [p["type"] for p in sample.messages[1]["content"]] == ["inline_reasoning", "action_description"]
    assert sample.messages[2] == {
        "role": "tool",
        "tool_call_id": "call_0000",
        "content": [{"type": "image", "index": 1}],
    }
    assert sample.messages[3] == {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}


def test_office_api_action_skips_the_trajectory(shared_fixtures: Path, tmp_path: Path) -> None:
    api = {"action_type": "API", "function": "select_text", "args": {"text": "Agent"}}
    raw_trajectory(shared_fixtures, tmp_path / "src", last_action=api)
    report = run_conversion("gui360", tmp_path / "src", tmp_path / "out")
    assert report["samples"] == 0
    assert report["skipped"] == {"unmapped action": 2}  # both step records of the trajectory
    assert report["unmapped_actions"] == {"gui360.select_text": 1}


@pytest.mark.parametrize(
    ("keys", "actions"),
    [
        ("{ENTER}", [KeyPress(("enter",))]),
        ("^a", [KeyPress(("ctrl", "a"))]),
        ("{VK_CONTROL}c", [KeyPress(("ctrl", "c"))]),
        ("hello{TAB}", [TypeText("hello"), KeyPress(("tab",))]),
        ("{VK_SHIFT down}x{VK_SHIFT up}", [KeyDown("shift"), TypeText("x"), KeyUp("shift")]),
        ("+{TAB}", [KeyPress(("shift", "tab"))]),
        ("{VK_MENU}", [KeyPress(("alt",))]),
    ],
)
def test_send_keys(keys: str, actions: list[object]) -> None:
    assert _send_keys(keys) == actions
