"""OSWorld result folders, laid out as lib_run_single writes them, with a real task definition."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

from PIL import Image

from cua_core.actions import from_pixels
from cua_data import DatasetReader, run_conversion

DOMAIN, TASK = "os", "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2"
INSTRUCTION = "The volume of my system is too small. Can you help me turn up to the max volume?"


def png(path: Path, color: tuple[int, int, int], size: tuple[int, int] = (1920, 1080)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())
    return out.getvalue()


def run_folder(shared_fixtures: Path, root: Path, actions: list[Any], *, initial: bool, task: bool = True) -> Path:
    """``root/results/pyautogui/screenshot/<model>/os/<id>/`` plus ``root/evaluation_examples``."""
    if task:
        examples = root / "evaluation_examples/examples" / DOMAIN
        examples.mkdir(parents=True)
        shutil.copy(shared_fixtures / "osworld" / DOMAIN / f"{TASK}.json", examples / f"{TASK}.json")
    result = root / "results/pyautogui/screenshot/some-model" / DOMAIN / TASK
    result.mkdir(parents=True)
    if initial:
        png(result / "step_0_20240101@115900.png", (0, 0, 0))
    lines = []
    for n, action in enumerate(actions, 1):
        stamp = f"20240101@1200{n:02d}"
        done = n == len(actions)
        lines.append(
            {
                "step_num": n,
                "action_timestamp": stamp,
                "action": action,
                "response": f"I should do step {n}.",
                "reward": 0,
                "done": done,
                "info": {},
                "screenshot_file": f"step_{n}_{stamp}.png",
            }
        )
        png(result / f"step_{n}_{stamp}.png", (n, n, n))
    (result / "traj.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (result / "result.txt").write_text("1.0\n")
    return result


ACTIONS = ["pyautogui.click(100, 200)", "pyautogui.hotkey('ctrl', 'alt', 't')", "DONE"]


def test_run_with_an_initial_screenshot(shared_fixtures: Path, tmp_path: Path) -> None:
    run_folder(shared_fixtures, tmp_path / "src", ACTIONS, initial=True)
    report = run_conversion("osworld", tmp_path / "src", tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"], report["unmapped_actions"]) == (1, 1, {}, {})
    (sample,) = DatasetReader(tmp_path / "out", platform="desktop", task_type="use")
    assert sample.messages[0]["content"] == [{"type": "image", "index": 0}, {"type": "text", "text": INSTRUCTION}]
    click = from_pixels(100, 200, 1920, 1080)
    assert sample.messages[1]["tool_calls"][0]["function"]["arguments"] == {
        "actions": [{"action": "click", "coordinate": [round(click.x), round(click.y)]}]
    }
    assert sample.messages[3]["tool_calls"][0]["function"]["arguments"] == {
        "actions": [{"action": "key", "keys": ["ctrl", "alt", "t"]}]
    }
    assert [m["role"] for m in sample.messages] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert sample.messages[1]["content"] == [{"type": "inline_reasoning", "text": "I should do step 1."}]
    assert sample.messages[-1]["content"] == [{"type": "text", "text": "Done."}]  # DONE is not a tool call
    assert len(sample.images) == 3  # step_0, then the screenshots after actions 1 and 2
    others = sample.metadata.others
    assert others["reward"] == 1.0
    assert (others["source"], others["source_id"]) == ("xlangai/OSWorld", f"{DOMAIN}/{TASK}")
    assert others["resolution"] == [1920, 1080]
    assert "first_step" not in others


def test_run_without_an_initial_screenshot_starts_after_action_one(shared_fixtures: Path, tmp_path: Path) -> None:
    run_folder(shared_fixtures, tmp_path / "src", ACTIONS, initial=False)
    report = run_conversion("osworld", tmp_path / "src", tmp_path / "out")
    assert (report["records"], report["samples"]) == (1, 1)
    assert report["unmapped_actions"] == {"first action without a screenshot before it": 1}
    (sample,) = DatasetReader(tmp_path / "out")
    assert sample.metadata.others["first_step"] == 2
    assert sample.messages[1]["content"] == [{"type": "inline_reasoning", "text": "I should do step 2."}]
    assert sample.messages[1]["tool_calls"][0]["function"]["arguments"]["actions"][0] == {
        "action": "key",
        "keys": ["ctrl", "alt", "t"],
    }
    assert len(sample.images) == 2
    stored = tmp_path / "out/images" / sample.images[0].split("/images/")[1]
    assert Image.open(stored).getpixel((0, 0)) == (1, 1, 1)  # the screenshot after action 1


def test_computer_13_actions_and_failures(shared_fixtures: Path, tmp_path: Path) -> None:
    actions = [{"action_type": "CLICK", "parameters": {"x": 960, "y": 540}}, "FAIL"]
    run_folder(shared_fixtures, tmp_path / "src", actions, initial=True)
    report = run_conversion("osworld", tmp_path / "src", tmp_path / "out")
    assert report["samples"] == 1
    (sample,) = DatasetReader(tmp_path / "out")
    assert sample.messages[1]["tool_calls"][0]["function"]["arguments"]["actions"] == [
        {"action": "click", "coordinate": [500, 500]}
    ]
    assert sample.metadata.others["terminate_status"] == "failure"


def test_unmapped_code_and_missing_task_are_counted(shared_fixtures: Path, tmp_path: Path) -> None:
    run_folder(shared_fixtures, tmp_path / "a", ["pyautogui.locateOnScreen('x.png')", "DONE"], initial=True)
    report = run_conversion("osworld", tmp_path / "a", tmp_path / "out_a")
    assert (report["samples"], report["skipped"]) == (0, {"unmapped action": 1})
    assert report["unmapped_actions"] == {"pyautogui.locateOnScreen": 1}
    run_folder(shared_fixtures, tmp_path / "b", ACTIONS, initial=True, task=False)
    report = run_conversion("osworld", tmp_path / "b", tmp_path / "out_b")
    assert report["skipped"] == {"missing task instruction (no <domain>/<example_id>.json found)": 1}


def test_task_definitions_alone_are_no_runs(shared_fixtures: Path, tmp_path: Path) -> None:
    report = run_conversion("osworld", shared_fixtures / "osworld", tmp_path / "out")
    assert (report["records"], report["samples"]) == (0, 0)
