"""OpenCUA: AgentNet trajectories and AgentNetBench steps from the real records, read back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from support.pngs import png

from cua_data import DatasetReader, run_conversion

OPENCUA = "datasets/opencua"
TASK = "0030dc52-2a4a-4c0e-895b-48284c200efe"


def test_fixture_folder_as_is(shared_fixtures: Path, tmp_path: Path) -> None:
    report = run_conversion("opencua", shared_fixtures / OPENCUA, tmp_path / "out")
    # 1 HF record + 1 CoT record + 7 AgentNetBench steps + 5 grounding inputs + 1 raw recording folder.
    assert report["records"] == 15
    assert report["samples"] == 3  # bench steps 2, 3, 4: the only steps whose screenshots ship
    assert report["skipped"] == {
        "missing image": 5,  # the HF record, the CoT record (14 of 15 images absent), bench steps 6, 7, 9
        "terminate step: not a tool call in a grounding row": 1,  # bench step 10
        "grounding inference input: no target to learn": 5,  # grounding_examples/test{0..4}.json
        "raw AgentNetTool recording: its screenshots are frames of a screen video the record does not hold": 1,
    }
    assert report["unmapped_actions"] == {}
    assert report["written"]["rows"] == {"desktop/grounding.action/test/agentnetbench.parquet": 3}
    assert report["written"]["images_written"] == 3
    by_id = {s.metadata.id: s for s in DatasetReader(tmp_path / "out")}
    first = by_id["agentnetbench_s_df0fd37049f470c2_2"]
    assert first.messages[0]["content"][1]["text"].startswith("Click inside the search input field labeled")
    # pyautogui.click(x=0.3271, y=0.2694) -> [327, 269]
    assert first.messages[1]["tool_calls"][0]["function"]["arguments"] == {
        "actions": [{"action": "click", "coordinate": [327, 269]}]
    }
    assert first.metadata.others["os"] == "windows"
    assert first.metadata.others["resolution"] == [1280, 720]
    assert first.metadata.others["source"] == "xlangai/AgentNetBench"
    typed = by_id["agentnetbench_s_df0fd37049f470c2_3"].messages[1]["tool_calls"][0]["function"]["arguments"]
    assert typed == {"actions": [{"action": "type", "text": "george orwell"}]}
    search = by_id["agentnetbench_s_df0fd37049f470c2_4"]
    assert search.messages[1]["tool_calls"][0]["function"]["arguments"]["actions"][0]["coordinate"] == [528, 269]
    assert search.metadata.others["milestone"] is True


def test_cot_example_trajectory_with_its_screenshots(shared_fixtures: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(shared_fixtures / OPENCUA / "cot_raw_example.jsonl", src / "cot_raw_example.jsonl")
    real = (shared_fixtures / OPENCUA / "cot_images/10.png").read_bytes()  # 1276 x 718
    for n in range(15):
        if n == 10:
            (src / "images/10.png").write_bytes(real)
        else:
            png(src / f"images/{n}.png", (1276, 718), (12 if n == 13 else n, 0, 0))  # 12.png == 13.png
    report = run_conversion("opencua", src, tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (1, 1, {})
    assert report["written"]["images_written"] == 14
    assert report["written"]["images_deduplicated"] == 1
    (sample,) = DatasetReader(tmp_path / "out", platform="desktop", task_type="use", variant="cot_raw_example")
    assert sample.metadata.id == "agentnet_cot_raw_example_task_example_0"
    assert sample.messages[0]["content"][1]["text"].startswith("Open the system display settings, adjust")
    # 14 actions, each answered by the next screenshot, then the terminate step's "Done.".
    assert len(sample.messages) == 1 + 14 * 2 + 1
    assert len(sample.images) == 15
    assert sample.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}

    def actions(turn: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = sample.messages[1 + 2 * turn]["tool_calls"][0]["function"]["arguments"][
            "actions"
        ]
        return result

    assert actions(0) == [{"action": "click", "coordinate": [972, 970]}]  # x=0.9722, y=0.9701
    assert actions(1) == [{"action": "click", "coordinate": [955, 512], "button": "right"}]
    assert actions(3) == [
        {"action": "mouse_move", "coordinate": [455, 268]},
        {"action": "drag", "coordinate": [411, 277]},
    ]
    assert actions(5) == [
        {"action": "mouse_move", "coordinate": [396, 784]},
        {"action": "scroll", "direction": "down", "amount": 3},
    ]
    stored = tmp_path / "out/images" / sample.images[10].split("/images/")[1]
    assert stored.read_bytes() == real


def test_agentnet_hf_record_keeps_monologue_and_quality_fields(shared_fixtures: Path, tmp_path: Path) -> None:
    record = json.loads((shared_fixtures / OPENCUA / "agentnet_hf_record_example.from_cua-lite_doc.json").read_text())
    src = tmp_path / "src"
    src.mkdir()
    (src / "agentnet_ubuntu_5k.jsonl").write_text(json.dumps(record) + "\n")  # HF ships one record per line
    png(src / "ubuntu_images" / record["traj"][0]["image"], (1920, 1080), (5, 5, 5))
    report = run_conversion("opencua", src, tmp_path / "out")
    assert (report["records"], report["samples"]) == (1, 1)
    (sample,) = DatasetReader(tmp_path / "out", variant="ubuntu")
    others = sample.metadata.others
    assert others["id"] == f"agentnet_ubuntu_{TASK}"
    assert (others["source"], others["source_id"], others["os"]) == ("xlangai/AgentNet", TASK, "ubuntu")
    assert (others["task_completed"], others["alignment_score"], others["domain"]) == (False, 6, "infeasible")
    assert sample.messages[0]["content"][1]["text"] == record["instruction"]
    step = sample.messages[1]
    kinds = [part["type"] for part in step["content"]]
    assert kinds == ["inline_reasoning", "action_description", "metadata"]
    assert step["content"][1]["text"] == record["traj"][0]["value"]["action"]
    assert step["content"][2]["data"]["opencua_step"]["last_step_correct"] is True
    assert step["tool_calls"][0]["function"]["arguments"] == {"actions": [{"action": "click", "coordinate": [18, 508]}]}
    assert len(sample.messages) == 2  # one step, no terminate: ends on the unanswered call


def test_unmapped_step_skips_the_trajectory(shared_fixtures: Path, tmp_path: Path) -> None:
    record = json.loads((shared_fixtures / OPENCUA / "cot_raw_example.jsonl").read_text())
    record["traj"][2]["value"]["code"] = "pyautogui.locateOnScreen('gear.png')"
    src = tmp_path / "src"
    src.mkdir()
    (src / "edited.jsonl").write_text(json.dumps(record) + "\n")
    report = run_conversion("opencua", src, tmp_path / "out")
    assert report["skipped"] == {"unmapped action": 1}
    assert report["unmapped_actions"] == {"pyautogui.locateOnScreen": 1}
    assert report["samples"] == 0
