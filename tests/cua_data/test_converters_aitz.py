"""AITZ (Android in the Zoo): the real published episode GOOGLE_APPS-523638528775825151, read back.

The fixture ships the episode's JSON and 2 of its 4 screenshots (steps 0 and 2). As shipped the
episode is skipped for its missing screenshots; the other tests copy it and stand plain PNGs in
for steps 1 and 3, or edit one field of a copy to reach a branch the real episode does not take.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from cua_data import DatasetReader, LiteSample, run_conversion

AITZ = "datasets/aitz"
EPISODE = "GOOGLE_APPS-523638528775825151"


def png(path: Path, color: tuple[int, int, int], size: tuple[int, int] = (270, 600)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())
    return out.getvalue()


def steps_of(shared_fixtures: Path) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = json.loads((shared_fixtures / AITZ / f"{EPISODE}.json").read_text())
    return steps


def episode_folder(shared_fixtures: Path, folder: Path, steps: list[dict[str, Any]] | None = None) -> Path:
    """The episode as published (JSON + screenshots in one folder), with stand-ins for steps 1 and 3."""
    folder.mkdir(parents=True)
    (folder / f"{EPISODE}.json").write_text(json.dumps(steps if steps is not None else steps_of(shared_fixtures)))
    for n in (0, 2):
        shutil.copy(shared_fixtures / AITZ / f"{EPISODE}_{n}.png", folder / f"{EPISODE}_{n}.png")
    for n in (1, 3):
        png(folder / f"{EPISODE}_{n}.png", (n, 0, 0))
    return folder


def actions(sample: LiteSample, turn: int) -> list[dict[str, Any]]:
    calls = [m for m in sample.messages if m["role"] == "assistant" and "tool_calls" in m]
    result: list[dict[str, Any]] = calls[turn]["tool_calls"][0]["function"]["arguments"]["actions"]
    return result


def test_fixture_folder_as_is(shared_fixtures: Path, tmp_path: Path) -> None:
    report = run_conversion("aitz", shared_fixtures / AITZ, tmp_path / "out")
    # One episode of 4 steps; the screenshots of steps 1 and 3 are not in the fixture, so the
    # episode is skipped (each screenshot is also the previous step's result) and every step counted.
    assert (report["records"], report["samples"]) == (4, 0)
    assert report["skipped"] == {"missing image": 4}
    assert report["examples"]["missing image"].endswith(f"step 1: google_apps/{EPISODE}/{EPISODE}_1.png not found")
    assert report["unmapped_actions"] == {}
    assert report["written"]["rows"] == {}
    assert not (tmp_path / "out").exists()  # a conversion that wrote nothing leaves nothing behind


def test_episode_with_its_screenshots(shared_fixtures: Path, tmp_path: Path) -> None:
    src = episode_folder(shared_fixtures, tmp_path / "src")
    report = run_conversion("aitz", src, tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (4, 1, {})
    assert report["written"]["rows"] == {"mobile/use/train/google_apps.parquet": 1}
    (sample,) = DatasetReader(tmp_path / "out")
    others = sample.metadata.others
    assert others == {
        "id": "aitz_523638528775825151",
        "os": "android",
        "source": "IMNearth/CoAT",
        "source_id": EPISODE,
        "resolution": [270, 600],
    }
    assert sample.messages[0]["content"][1]["text"] == 'open app "Clock" (install if not already installed)'
    assert actions(sample, 0) == [{"action": "system_button", "button": "Home"}]  # PRESS_HOME (6)
    # DUAL_POINT touch [y, x] = [0.5411, 0.5074] -> lift [0.0011, 0.5789]: 0.54 apart, a swipe.
    assert actions(sample, 1) == [{"action": "swipe", "start_coordinate": [507, 541], "coordinate": [579, 1]}]
    # touch [0.4984, 0.6070], lift [0.4967, 0.6070]: 0.0017 apart, a tap at the touch point.
    assert actions(sample, 2) == [{"action": "tap", "coordinate": [607, 498], "clicks": 1}]
    assert sample.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}  # COMPLETE
    assert len(sample.messages) == 1 + 3 * 2 + 1  # three actions answered by the next screenshot, then Done.
    stored = [tmp_path / "out/images" / str(ref).split("/images/")[1] for ref in sample.images]
    assert len(stored) == 4
    assert stored[0].read_bytes() == (shared_fixtures / AITZ / f"{EPISODE}_0.png").read_bytes()
    assert stored[2].read_bytes() == (shared_fixtures / AITZ / f"{EPISODE}_2.png").read_bytes()


def test_coat_annotations_are_kept(shared_fixtures: Path, tmp_path: Path) -> None:
    src = episode_folder(shared_fixtures, tmp_path / "src")
    run_conversion("aitz", src, tmp_path / "out")
    (sample,) = DatasetReader(tmp_path / "out")
    first, step = sample.messages[1], steps_of(shared_fixtures)[0]
    assert [part["type"] for part in first["content"]] == ["inline_reasoning", "action_description", "metadata"]
    assert first["content"][0]["text"] == step["coat_action_think"]
    assert first["content"][1]["text"] == "press the home button"
    assert first["content"][2]["data"] == {
        "aitz_step": {"coat_screen_desc": step["coat_screen_desc"], "coat_action_result": step["coat_action_result"]}
    }


def test_published_layout_gives_split_and_variant(shared_fixtures: Path, tmp_path: Path) -> None:
    episode_folder(shared_fixtures, tmp_path / "src/test/google_apps" / EPISODE)
    episode_folder(shared_fixtures, tmp_path / "src/train/google_apps" / EPISODE)
    report = run_conversion("aitz", tmp_path / "src", tmp_path / "out")
    assert report["written"]["rows"] == {
        "mobile/use/test/google_apps.parquet": 1,
        "mobile/use/train/google_apps.parquet": 1,
    }


def edited(shared_fixtures: Path, step: int, **fields: Any) -> list[dict[str, Any]]:
    steps = steps_of(shared_fixtures)
    steps[step] |= fields
    return steps


@pytest.mark.parametrize(
    ("touch", "lift", "expected"),
    [
        # AITW: a tap when the distance is <= 0.04 (0.039 here), a swipe past it (0.041)
        ("[0.5, 0.6]", "[0.539, 0.6]", [{"action": "tap", "coordinate": [600, 500], "clicks": 1}]),
        ("[0.5, 0.6]", "[0.5, 0.641]", [{"action": "swipe", "start_coordinate": [600, 500], "coordinate": [641, 500]}]),
    ],
)
def test_tap_or_swipe_by_aitw_threshold(
    shared_fixtures: Path, tmp_path: Path, touch: str, lift: str, expected: list[dict[str, Any]]
) -> None:
    steps = edited(shared_fixtures, 2, result_touch_yx=touch, result_lift_yx=lift)
    run_conversion("aitz", episode_folder(shared_fixtures, tmp_path / "src", steps), tmp_path / "out")
    (sample,) = DatasetReader(tmp_path / "out")
    assert actions(sample, 2) == expected


def test_type_and_impossible(shared_fixtures: Path, tmp_path: Path) -> None:
    steps = edited(shared_fixtures, 2, result_action_type=3, result_action_text="clock")
    steps[3]["result_action_type"] = 11  # STATUS_TASK_IMPOSSIBLE
    run_conversion("aitz", episode_folder(shared_fixtures, tmp_path / "src", steps), tmp_path / "out")
    (sample,) = DatasetReader(tmp_path / "out")
    assert actions(sample, 2) == [{"action": "type", "text": "clock"}]
    assert sample.metadata.others["terminate_status"] == "failure"
    assert sample.messages[-1]["content"] == [{"type": "text", "text": "Done."}]


@pytest.mark.parametrize(
    ("fields", "form"),
    [
        ({"result_action_type": 8}, "aitz result_action_type 8"),
        ({"result_touch_yx": "[1.2, 0.5]"}, "aitz DUAL_POINT: coordinate outside the screen"),
        ({"result_lift_yx": "not a point"}, "aitz DUAL_POINT: malformed point"),
        ({"result_action_type": 3, "result_action_text": ""}, "aitz TYPE: no text"),
    ],
)
def test_unmapped_action_skips_the_episode(
    shared_fixtures: Path, tmp_path: Path, fields: dict[str, Any], form: str
) -> None:
    steps = edited(shared_fixtures, 2, **fields)
    report = run_conversion("aitz", episode_folder(shared_fixtures, tmp_path / "src", steps), tmp_path / "out")
    assert (report["records"], report["samples"]) == (4, 0)
    assert report["skipped"] == {"unmapped action": 4}
    assert report["unmapped_actions"] == {form: 1}


def test_incomplete_episode_is_skipped(shared_fixtures: Path, tmp_path: Path) -> None:
    steps = steps_of(shared_fixtures)[:3]  # episode_length says 4
    report = run_conversion("aitz", episode_folder(shared_fixtures, tmp_path / "src", steps), tmp_path / "out")
    assert report["skipped"] == {"incomplete episode (step ids not 0..n-1, or fewer steps than episode_length)": 3}
    assert report["samples"] == 0


def test_other_json_is_counted_not_dropped(shared_fixtures: Path, tmp_path: Path) -> None:
    src = episode_folder(shared_fixtures, tmp_path / "src")
    (src / "notes.json").write_text(json.dumps({"comment": "not a step"}))
    (src / "broken.json").write_text("{")
    report = run_conversion("aitz", src, tmp_path / "out")
    assert (report["records"], report["samples"]) == (6, 1)
    assert report["skipped"] == {"not an AITZ step": 1, "invalid JSON": 1}
