"""OS-Atlas: its published agent-task steps (AndroidControl, GUIAct, GUI-Odyssey, OmniACT), read back.

The records name screenshots on the authors' cluster that are not published; tests that need rows
place a screenshot where the record's path resolves (a mirror of its last folders under images/).
The converter runs through a DatasetWriter as ``run_conversion`` does, so no registration is needed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.pngs import jsonl as lines
from support.pngs import png

from cua_data import DatasetReader, DatasetWriter, LiteSample
from cua_data.convert import ConversionReport
from cua_data.converters.os_atlas import convert_os_atlas, cua_data_register_converters

OS_ATLAS = "datasets/os_atlas/eval_data"
TERMINATE = "terminate step: not a tool call in a grounding row"
# One real record per platform: (file, line). OmniACT's path says web; desktop edits it to desktop.
BASES = {"mobile": ("gui_odyssey_test.jsonl", 0), "browser": ("gui_act_web_test.jsonl", 0)}


def mirror(src: Path, image: str) -> Path:
    """Where a copy of the screenshot ``image`` goes: its last three path parts under src/images."""
    return src.joinpath("images", *image.split("/")[-3:])


def convert(src: Path, dst: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The converter's report and the writer's, as ``run_conversion`` would produce them."""
    report = ConversionReport()
    with DatasetWriter(dst) as writer:
        for item in convert_os_atlas(src, report):
            if writer.add(item.sample, split=item.split, variant=item.variant):
                report.samples += 1
    return report.to_dict(), writer.report.to_dict()


def with_screenshots(fixtures: Path, tmp_path: Path, *names: str) -> Path:
    """The named fixture files in src/, with a screenshot for each record's image path."""
    src = tmp_path / "src"
    for name in names:
        src.mkdir(exist_ok=True)
        shutil.copy(fixtures / OS_ATLAS / name, src / name)
        for n, record in enumerate(lines(src / name)):
            size = (1080, 2400) if "web" not in record["image"] else (1920, 1080)
            png(mirror(src, record["image"]), size, (n, len(name), 0))
    return src


def rows(dst: Path) -> dict[str, LiteSample]:
    return {str(s.metadata.id): s for s in DatasetReader(dst)}


def lite_actions(sample: LiteSample) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = sample.messages[1]["tool_calls"][0]["function"]["arguments"]["actions"]
    return actions


def one_step(fixtures: Path, tmp_path: Path, platform: str, actions: str) -> Path:
    """A real record of ``platform`` whose answer is ``actions``, with its screenshot, in src/."""
    name, line = BASES.get(platform, ("omniact_test.jsonl", 0))
    record = lines(fixtures / OS_ATLAS / name)[line]
    if platform == "desktop":
        record["image"] = record["image"].replace("/web/", "/desktop/")  # OmniACT's desktop half
    record["conversations"][1]["value"] = f"actions:\n{actions}"
    src = tmp_path / "src"
    src.mkdir()
    (src / name).write_text(json.dumps(record) + "\n")
    png(mirror(src, record["image"]), (1280, 800), (1, 2, 3))
    return src


def test_fixture_folder_as_is(shared_fixtures: Path, tmp_path: Path) -> None:
    report, written = convert(shared_fixtures / "datasets/os_atlas", tmp_path / "out")
    assert report["records"] == 18  # 6 files x 3 lines
    assert report["samples"] == 0
    # No screenshot is published; the two OPEN_APP steps (ac_test, ac_low_test) fail before the lookup.
    assert report["skipped"] == {"missing image": 16, "unmapped action": 2}
    assert report["examples"]["missing image"].endswith("android_control/screenshots/episode_140_screenshot_1.png")
    assert report["unmapped_actions"] == {"OPEN_APP": 2}
    assert written["rows"] == {}


def test_android_control_steps_become_mobile_rows(shared_fixtures: Path, tmp_path: Path) -> None:
    src = with_screenshots(shared_fixtures, tmp_path, "ac_test.jsonl")
    report, written = convert(src, tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (3, 2, {"unmapped action": 1})
    assert written["rows"] == {"mobile/grounding.action/test/ac.parquet": 2}
    got = rows(tmp_path / "out")
    press, tap = got["os_atlas_ac_test_1"], got["os_atlas_ac_test_2"]
    assert press.messages[1]["tool_calls"][0]["function"]["name"] == "mobile"
    # LONG_PRESS <point>[[108,272]]</point> and CLICK <point>[[950,87]]</point>, copied unchanged.
    assert lite_actions(press) == [{"action": "long_press", "coordinate": [108, 272], "duration": 1.0}]
    assert lite_actions(tap) == [{"action": "tap", "coordinate": [950, 87], "clicks": 1}]
    others = tap.metadata.others
    assert (others["source"], others["source_id"], others["os"]) == ("OS-Copilot/OS-Atlas", "ac_test/21", "android")
    assert others["resolution"] == [1080, 2400]


def test_question_holds_task_and_history_and_thoughts_are_reasoning(shared_fixtures: Path, tmp_path: Path) -> None:
    src = with_screenshots(shared_fixtures, tmp_path, "ac_test.jsonl", "gui_act_mobile_test.jsonl")
    convert(src, tmp_path / "out")
    got = rows(tmp_path / "out")
    step3 = got["os_atlas_ac_test_2"]
    question = step3.messages[0]["content"]
    assert question[0] == {"type": "image", "index": 0}
    assert question[1]["text"].startswith('Share my favorite Book "the Queen\'s Gambit" to my Friend Natalie')
    assert question[1]["text"].endswith(
        "You need to: Click on the more options icon at the top right corner of the screen.\n\nHistory:\n"
        'Step 1: open the PocketBook app.\nStep 2: Long press on the "the Queen\'s Gambit" book.'
    )
    assert "CLICK" not in question[1]["text"]  # OS-Atlas's prompt and action grammar stay out
    assert step3.messages[1]["content"] == [
        {"type": "inline_reasoning", "text": "Click on the more options icon at the top right corner of the screen."}
    ]
    first = got["os_atlas_gui_act_mobile_test_0"]  # "History: None", and no thoughts in this file
    assert first.messages[0]["content"][1]["text"] == "What is the capital of Brazil?"
    assert "content" not in first.messages[1]


def test_web_and_phone_sources_get_their_platform(shared_fixtures: Path, tmp_path: Path) -> None:
    names = ("gui_act_web_test.jsonl", "gui_act_mobile_test.jsonl", "gui_odyssey_test.jsonl", "omniact_test.jsonl")
    src = with_screenshots(shared_fixtures, tmp_path, *names)
    report, written = convert(src, tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (12, 12, {})
    assert written["rows"] == {
        "browser/grounding.action/test/gui_act_web.parquet": 3,
        "mobile/grounding.action/test/gui_act_mobile.parquet": 3,
        "mobile/grounding.action/test/gui_odyssey.parquet": 3,
        "browser/grounding.action/test/omniact.parquet": 3,  # its image path is OmniACT's web half
    }
    assert written["images_deduplicated"] == 2  # OmniACT's three tasks share asics/screen1.png
    got = rows(tmp_path / "out")
    web = got["os_atlas_gui_act_web_test_0"]
    assert web.messages[1]["tool_calls"][0]["function"] == {
        "name": "computer",
        "arguments": {"actions": [{"action": "click", "coordinate": [493, 578]}]},
    }
    assert web.metadata.others["os"] is None
    assert lite_actions(got["os_atlas_gui_odyssey_test_0"]) == [
        {"action": "tap", "coordinate": [683, 321], "clicks": 1}
    ]
    assert lite_actions(got["os_atlas_omniact_test_2"]) == [{"action": "click", "coordinate": [894, 128]}]


def test_image_resolves_by_its_longest_path_suffix(shared_fixtures: Path, tmp_path: Path) -> None:
    src = with_screenshots(shared_fixtures, tmp_path, "gui_act_mobile_test.jsonl")
    # Each GUIAct episode numbers its screenshots from step_00.png: a bare name is someone else's.
    png(src / "images/step_00.png", (640, 480), (9, 9, 9))
    png(src / "step_00.png", (640, 480), (8, 8, 8))
    convert(src, tmp_path / "out")
    first = rows(tmp_path / "out")["os_atlas_gui_act_mobile_test_0"]
    assert first.metadata.others["resolution"] == [1080, 2400]  # record_10270193012375700035/step_00.png


@pytest.mark.parametrize(
    ("platform", "actions", "expected"),
    [
        ("mobile", "DOUBLECLICK <point>[[10, 20]]</point>", [{"action": "tap", "coordinate": [10, 20], "clicks": 2}]),
        ("mobile", "TYPE [Shanghai shopping mall]", [{"action": "type", "text": "Shanghai shopping mall"}]),
        # The view scrolls up: the finger slides down through the centre, half a screen.
        ("mobile", "SCROLL [UP]", [{"action": "swipe", "start_coordinate": [500, 250], "coordinate": [500, 750]}]),
        ("mobile", "SCROLL [DOWN]", [{"action": "swipe", "start_coordinate": [500, 750], "coordinate": [500, 250]}]),
        ("mobile", "SCROLL [LEFT]", [{"action": "swipe", "start_coordinate": [250, 500], "coordinate": [750, 500]}]),
        ("mobile", "SCROLL [RIGHT]", [{"action": "swipe", "start_coordinate": [750, 500], "coordinate": [250, 500]}]),
        ("mobile", "PRESS_BACK", [{"action": "system_button", "button": "Back"}]),
        ("mobile", "PRESS_HOME", [{"action": "system_button", "button": "Home"}]),
        ("mobile", "PRESS_RECENT", [{"action": "system_button", "button": "Recent"}]),
        ("mobile", "ENTER", [{"action": "system_button", "button": "Enter"}]),
        ("mobile", "WAIT", [{"action": "wait", "duration": 1.0}]),
        (
            "mobile",
            "TYPE [milk]\nENTER",
            [{"action": "type", "text": "milk"}, {"action": "system_button", "button": "Enter"}],
        ),
        ("browser", "SCROLL [DOWN]", [{"action": "scroll", "direction": "down", "amount": 3}]),
        ("browser", "ENTER", [{"action": "key", "keys": ["enter"]}]),
        ("browser", "TYPE [New York]", [{"action": "type", "text": "New York"}]),
        ("desktop", "DOUBLECLICK <point>[[101,872]]</point>", [{"action": "click", "coordinate": [101, 872], "clicks": 2}]),
        ("desktop", "RIGHTCLICK <point>[[101,872]]</point>", [{"action": "click", "coordinate": [101, 872], "button": "right"}]),
        ("desktop", "MOVETO <point>[[101,872]]</point>", [{"action": "mouse_move", "coordinate": [101, 872]}]),
        ("desktop", "PRESS_SPACE", [{"action": "key", "keys": ["space"]}]),
        ("desktop", "PRESS_TAB", [{"action": "key", "keys": ["tab"]}]),
        ("desktop", "PRESS_ESC", [{"action": "key", "keys": ["esc"]}]),
        ("desktop", "PRESS_PGDN", [{"action": "key", "keys": ["pagedown"]}]),
        ("desktop", "PRESS_DOWN", [{"action": "key", "keys": ["down"]}]),
        ("desktop", "PRESS_ENTER", [{"action": "key", "keys": ["enter"]}]),
        ("desktop", "PRESS_RIGHT", [{"action": "key", "keys": ["right"]}]),
        ("desktop", "HOTKEY [CTRL_A]", [{"action": "key", "keys": ["ctrl", "a"]}]),
    ],
)  # fmt: skip
def test_documented_action_forms(
    shared_fixtures: Path, tmp_path: Path, platform: str, actions: str, expected: list[dict[str, Any]]
) -> None:
    report, _ = convert(one_step(shared_fixtures, tmp_path, platform, actions), tmp_path / "out")
    assert (report["samples"], report["skipped"], report["unmapped_actions"]) == (1, {}, {})
    (sample,) = DatasetReader(tmp_path / "out")
    assert sample.metadata.platform == platform
    assert lite_actions(sample) == expected


@pytest.mark.parametrize("actions", ["COMPLETE", "IMPOSSIBLE", "TYPE [done]\nCOMPLETE"])
def test_terminate_steps_are_skipped(shared_fixtures: Path, tmp_path: Path, actions: str) -> None:
    report, _ = convert(one_step(shared_fixtures, tmp_path, "mobile", actions), tmp_path / "out")
    assert (report["samples"], report["skipped"], report["unmapped_actions"]) == (0, {TERMINATE: 1}, {})


@pytest.mark.parametrize(
    ("platform", "actions", "form"),
    [
        ("mobile", "OPEN_APP [Google Chrome]", "OPEN_APP"),
        ("mobile", "SWIPE [UP]", "SWIPE"),
        ("mobile", "click(x=0.5, y=0.5)", "click(x=0.5,"),
        ("mobile", "CLICK [[683,321]]", "CLICK: malformed arguments"),
        ("mobile", "CLICK <point>[[1001,321]]</point>", "CLICK: coordinate outside [0, 1000]"),
        ("mobile", "SCROLL [SIDEWAYS]", "SCROLL: malformed arguments"),
        ("mobile", "TYPE hello", "TYPE: malformed arguments"),
        ("mobile", "RIGHTCLICK <point>[[1,2]]</point>", "RIGHTCLICK: not on mobile"),
        ("mobile", "HOTKEY [CTRL_A]", "HOTKEY: not on mobile"),
        ("mobile", "PRESS_TAB", "PRESS_TAB: not on mobile"),
        ("mobile", "PRESS_BACK [twice]", "PRESS_BACK: unexpected arguments"),
        ("mobile", "CLICK <point>[[1,2]]</point>\nFLING", "FLING"),  # one bad line skips the step
        ("browser", "PRESS_HOME", "PRESS_HOME: not on browser"),
        ("desktop", "LONG_PRESS <point>[[1,2]]</point>", "LONG_PRESS: not on desktop"),
        ("desktop", "HOTKEY [CTRL_FOO]", "HOTKEY: unknown key"),
        ("desktop", "PRESS_FOO", "PRESS_FOO"),
        ("desktop", "PRESS_NUMLOCK", "PRESS_NUMLOCK: invalid arguments"),  # a key CUA-Lite cannot name
    ],
)
def test_unknown_and_malformed_actions_are_skipped_with_their_form(
    shared_fixtures: Path, tmp_path: Path, platform: str, actions: str, form: str
) -> None:
    report, written = convert(one_step(shared_fixtures, tmp_path, platform, actions), tmp_path / "out")
    assert (report["samples"], report["skipped"]) == (0, {"unmapped action": 1})
    assert report["unmapped_actions"] == {form: 1}
    assert written["rows"] == {}


def test_lines_that_are_not_steps_are_skipped_by_reason(shared_fixtures: Path, tmp_path: Path) -> None:
    real = lines(shared_fixtures / OS_ATLAS / "gui_act_web_test.jsonl")[0]
    no_task, no_actions = json.loads(json.dumps(real)), json.loads(json.dumps(real))
    no_task["conversations"][0]["value"] = "<image>\nWhat is on the screen?"
    no_actions["conversations"][1]["value"] = "thoughts:\nclick the sign-up button"
    src = tmp_path / "src"
    src.mkdir()
    text = [json.dumps(real)[:40], "", json.dumps([real]), json.dumps({"id": 1, "image": "a.png"})]
    text += [json.dumps(no_task), json.dumps(no_actions)]
    (src / "gui_act_web_test.jsonl").write_text("\n".join(text) + "\n")
    report, _ = convert(src, tmp_path / "out")
    assert report["records"] == 5  # the blank line is not a record
    assert report["skipped"] == {
        "invalid JSON": 1,
        "not an OS-Atlas record": 2,
        "no task in the prompt": 1,
        "no actions in the answer": 1,
    }


def test_corrupt_screenshot_is_skipped(shared_fixtures: Path, tmp_path: Path) -> None:
    src = one_step(shared_fixtures, tmp_path, "mobile", "PRESS_BACK")
    for image in (src / "images").rglob("*.png"):
        image.write_bytes(b"not a png")
    report, _ = convert(src, tmp_path / "out")
    assert (report["samples"], report["skipped"]) == (0, {"corrupt image": 1})


def test_identical_files_give_distinct_ids_and_variants(shared_fixtures: Path, tmp_path: Path) -> None:
    src = with_screenshots(shared_fixtures, tmp_path, "ac_test.jsonl", "ac_low_test.jsonl")
    shutil.copy(src / "ac_test.jsonl", src / "android_control_train.jsonl")
    _, written = convert(src, tmp_path / "out")
    assert written["rows"] == {
        "mobile/grounding.action/test/ac.parquet": 2,
        "mobile/grounding.action/test/ac_low.parquet": 2,
        "mobile/grounding.action/train/android_control_train.parquet": 2,
    }
    ids = sorted(rows(tmp_path / "out"))
    assert ids == [
        f"os_atlas_{stem}_{n}" for stem in ("ac_low_test", "ac_test", "android_control_train") for n in (1, 2)
    ]


def test_reads_the_file_as_it_goes(shared_fixtures: Path, tmp_path: Path) -> None:
    src = with_screenshots(shared_fixtures, tmp_path, "gui_act_web_test.jsonl")
    path = src / "gui_act_web_test.jsonl"
    path.write_text(path.read_text().splitlines()[0] + "\n" * 100_000)  # one record, then 100 kB of blank lines
    report = ConversionReport()
    items = convert_os_atlas(src, report)
    assert next(items).sample.metadata.id == "os_atlas_gui_act_web_test_0"
    with path.open("a") as more:
        more.write("written after the first row\n")
    assert list(items) == []
    # A converter that had read the whole file up front would never see the appended line.
    assert (report.records, dict(report.skipped)) == (2, {"invalid JSON": 1})


def test_registers_through_the_hook() -> None:
    registered: list[tuple[str, Any, str]] = []
    cua_data_register_converters(
        lambda name, obj, /, *, description="", **_: registered.append((name, obj, description))
    )
    ((name, obj, description),) = registered
    assert (name, obj) == ("os_atlas", convert_os_atlas)
    assert "OS-Atlas" in description
