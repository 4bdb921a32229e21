"""WebLINX: the real candidate rows and splits.json of shared/fixtures, and replays built from the docs.

``candidates_unittest.head10.jsonl`` holds 10 real candidate rows (one turn of demonstration
``aaabtsd``, one positive) and ``splits.json`` is the official split file. No demonstration
(``replay.json``, screenshots) is in the fixtures, so each replay here is built by the test from the
fields the weblinx library documents (``weblinx.Turn``: ``type``, ``speaker``/``utterance``,
``action.intent``, ``action.arguments.{metadata, element.bbox, text}``, ``state.screenshot``) and
its screenshots are plain images. The converter is called directly, so no registration is needed.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from cua_data import ConversionReport, Converted, DatasetReader, DatasetWriter, StoreError
from cua_data.convert import Converter
from cua_data.converters import weblinx
from cua_data.converters.weblinx import convert_weblinx

WEBLINX = "datasets/weblinx"
CANDIDATES = "candidates_unittest.head10.jsonl"
SAY = "say: a chat utterance (context for later turns, not a GUI action)"
VIEWPORT = {"viewportWidth": 1536, "viewportHeight": 746}
LIFE = {"x": 745.8, "y": 42.6, "width": 41.2, "height": 20.8, "top": 42.6, "left": 745.8}  # the positive's box


def png(path: Path, size: tuple[int, int] = (1920, 932)) -> None:
    """A screenshot at device pixel ratio 1.25 of the 1536 x 746 CSS viewport."""
    out = io.BytesIO()
    Image.new("RGB", size, (30, 60, 90)).save(out, "PNG")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())


def chat(speaker: str, utterance: str) -> dict[str, Any]:
    return {"type": "chat", "timestamp": 1.0, "speaker": speaker, "utterance": utterance}


def browser(intent: str, shot: str | None = "screenshot-7-0.png", bbox: Any = None, **arguments: Any) -> dict[str, Any]:
    metadata = {"url": "https://www.independent.ie/", "tabId": 1, **VIEWPORT} | arguments.pop("metadata", {})
    element = {"tagName": "DIV", "textContent": "Life", "bbox": bbox or LIFE, "attributes": {"data-webtasks-id": "x"}}
    state = {"screenshot": shot, "screenshot_status": "good", "page": "page-1-0.html"} if shot else {}
    return {
        "type": "browser",
        "timestamp": 2.0,
        "action": {"intent": intent, "arguments": {"metadata": metadata, "element": element, **arguments}},
        "state": state,
    }


def demonstration(root: Path, name: str, turns: list[Any]) -> None:
    folder = root / "demonstrations" / name
    folder.mkdir(parents=True)
    (folder / "replay.json").write_text(json.dumps({"data": turns, "version": "1.0.0"}))
    png(folder / "screenshots/screenshot-7-0.png")


def aaabtsd(root: Path) -> None:
    """The fixture turn's demonstration, consistent with the previous turns its query quotes."""
    turns = [
        chat("instructor", "Hello"),
        chat("instructor", "Open independent ie Website."),
        browser("load", None, url="https://www.independent.ie/"),
        chat("navigator", "Yes, sure"),
        chat("instructor", "Go to life and send me some life related news"),
        browser("hover", None, metadata={"mouseX": 964, "mouseY": 309}),  # its screenshot is not recorded
        browser("scroll", scrollX=0, scrollY=120),
        browser("click", metadata={"mouseX": 770, "mouseY": 55}),
    ]
    demonstration(root, "aaabtsd", turns)


def convert(src: Path) -> tuple[ConversionReport, list[Converted]]:
    report = ConversionReport()
    items = list(convert_weblinx(src, report))
    for item in items:
        item.sample.validate()
    return report, items


def answer(item: Converted) -> Any:
    return item.sample.messages[1]["tool_calls"][0]["function"]["arguments"]


def real_lines(shared_fixtures: Path) -> list[str]:
    return (shared_fixtures / WEBLINX / CANDIDATES).read_text().splitlines()


def test_fixture_folder_as_is(shared_fixtures: Path) -> None:
    report, items = convert(shared_fixtures / WEBLINX)
    assert items == []
    # The 10 rows are one turn; its screenshot is in the demonstration, which the fixtures lack.
    assert (report.records, dict(report.skipped)) == (
        1,
        {"missing screenshot (the turn's demonstration folder is not in SRC)": 1},
    )


def test_real_candidate_rows_with_their_demonstration(shared_fixtures: Path, tmp_path: Path) -> None:
    src = tmp_path / "WebLINX-full"
    (src / "candidates").mkdir(parents=True)
    (src / "candidates/unittest.jsonl").write_text((shared_fixtures / WEBLINX / CANDIDATES).read_text())
    (src / "splits.json").write_text((shared_fixtures / WEBLINX / "splits.json").read_text())
    aaabtsd(src)
    report, items = convert(src)
    by_id = {item.sample.metadata.id: item for item in items}
    assert set(by_id) == {"weblinx_aaabtsd_7_point", "weblinx_aaabtsd_7_bbox", "weblinx_aaabtsd_7"}
    assert {(item.split, item.variant) for item in items} == {("test", "weblinx_test_geo")}  # splits.json
    # x=745.8 y=42.6 width=41.2 height=20.8 over the query's 1536 x 746 viewport (not the 1920 x 932 pixels).
    assert answer(by_id["weblinx_aaabtsd_7_bbox"]) == {"coordinate": [486, 57, 512, 85]}
    assert answer(by_id["weblinx_aaabtsd_7_point"]) == {"coordinate": [499, 71]}
    point = by_id["weblinx_aaabtsd_7_point"].sample
    question = point.messages[0]["content"][1]["text"]
    assert question.startswith("Instructor utterances: [00:07] Hello\nPrevious turns: say(")
    assert "Go to life and send me some life related news" in question and "Viewport" not in question
    others = point.metadata.others
    assert (others["uid"], others["weblinx_split"], others["source_id"]) == (
        "1b19b264-6c31-4d72",
        "test_geo",
        "aaabtsd/7",
    )
    assert (others["resolution"], others["viewport"], point.metadata.platform) == ([1920, 932], [1536, 746], "browser")
    # The replay's own click turn: at the recorded mouse position (770, 55).
    action = by_id["weblinx_aaabtsd_7"].sample
    assert action.metadata.task_type == "grounding.action"
    assert answer(by_id["weblinx_aaabtsd_7"]) == {"actions": [{"action": "click", "coordinate": [501, 74]}]}
    assert action.messages[0]["content"][1]["text"].startswith("Dialogue so far:\ninstructor: Hello\n")
    assert report.records == 1 + 8
    assert dict(report.skipped) == {
        SAY: 4,
        "load: a URL navigation, no unified action": 1,
        "turn without a screenshot": 1,
        "scroll: an absolute page offset, not a scroll amount": 1,
    }
    with DatasetWriter(tmp_path / "out") as writer:
        assert all(writer.add(item.sample, split=item.split, variant=item.variant) for item in items)
    assert len(list(DatasetReader(tmp_path / "out", platform="browser", split="test"))) == 3


def test_malformed_and_unusable_candidate_turns(shared_fixtures: Path, tmp_path: Path) -> None:
    lines = real_lines(shared_fixtures)
    rows = [json.loads(line) for line in lines]

    def turn(index: int, positive_bbox: str | None) -> list[str]:
        out = []
        for row in rows[:3]:
            changed = row | {"turn_index": index}
            if row["label"] == 1:
                if positive_bbox is None:
                    continue  # no positive left in this turn
                changed["elem_dict"] = row["elem_dict"] | {"bbox": positive_bbox}
            out.append(json.dumps(changed))
        return out

    extra = ["{not json", json.dumps(rows[1] | {"demo_name": None})]
    extra += turn(8, None)
    extra += turn(9, "x=10 y=900 width=20 height=20")  # below the 746-pixel viewport
    extra += turn(10, "x=1500 y=10 width=60 height=20")  # centre inside, right edge past 1536
    extra += turn(11, "x=10 y=10 width=0 height=20")
    extra += turn(12, "x=ten y=10")
    extra += turn(40, "x=10 y=10 width=20 height=20")  # the replay has no turn 40
    extra += [json.dumps(rows[0] | {"turn_index": 13}), json.dumps(rows[0] | {"turn_index": 13})]
    extra += [json.dumps(rows[0] | {"turn_index": 14, "query": "no viewport here"})]
    src = tmp_path / "WebLINX-full"
    (src / "candidates").mkdir(parents=True)
    (src / "candidates/test_geo.jsonl").write_text("\n".join(lines + extra) + "\n")
    demonstration(src, "aaabtsd", [browser("click") for _ in range(15)])
    # A single candidates file: its split comes from its name (no splits.json), its replay is not converted.
    report, items = convert(src / "candidates/test_geo.jsonl")
    assert sorted(str(item.sample.metadata.id) for item in items) == [
        "weblinx_aaabtsd_10_point",
        "weblinx_aaabtsd_7_bbox",
        "weblinx_aaabtsd_7_point",
    ]
    assert {(item.split, item.variant) for item in items} == {("test", "weblinx_test_geo")}
    assert report.records == 2 + 9  # two bad lines, turns 7-14 and 40
    assert dict(report.skipped) == {
        "invalid JSON": 1,
        "malformed candidate row": 1,
        "no positive candidate": 1,
        "target outside the viewport": 1,
        "target box leaves the viewport (bbox row only)": 1,
        "empty target box": 1,
        "malformed element bbox": 1,
        "turn_index not a turn of the replay": 1,
        "more than one positive candidate": 1,
        "malformed query": 1,
    }


def test_replay_turns_map_to_unified_actions(shared_fixtures: Path, tmp_path: Path) -> None:
    splits = json.loads((shared_fixtures / WEBLINX / "splits.json").read_text())
    valid, train, iid = splits["valid"][0], splits["train"][0], splits["test_iid"][0]
    assert iid in splits["dev"]  # dev = valid + test_iid: ignored, so test_iid decides
    src = tmp_path / "src"
    src.mkdir()
    (src / "splits.json").write_text(json.dumps(splits))
    off_screen = {"x": 10, "y": 800, "width": 20, "height": 20}
    demonstration(
        src,
        valid,
        [
            browser("click"),  # before any utterance: nothing asked it
            chat("instructor", "  Search for flights to Oslo  "),
            browser("click", metadata={"mouseX": 768, "mouseY": 373}),
            browser("click"),  # no mouse position: the element's centre (766.4, 53)
            browser("hover", metadata={"mouseX": 0, "mouseY": 0}),
            browser("textInput", text="Oslo"),
            browser("textInput"),  # no text
            browser("click", bbox=off_screen),
            browser("click", bbox={"x": 1, "y": 2}),
            {"type": "browser", "action": {"intent": "click"}, "state": {"screenshot": "screenshot-7-0.png"}},
            browser("click") | {"state": {"screenshot": "screenshot-7-0.png", "screenshot_status": "broken"}},
            browser("click", shot="screenshot-9-9.png"),
            browser("click", shot="corrupt.png"),
            *[browser(intent) for intent in ("load", "scroll", "submit", "change", "copy", "paste")],
            *[browser(intent) for intent in ("tabcreate", "tabremove", "tabswitch")],
            browser("teleport"),
            "not a turn",
            {"type": "video"},
            chat("navigator", "Done"),
        ],
    )
    (src / "demonstrations" / valid / "screenshots/corrupt.png").write_bytes(b"not a png")
    demonstration(src, train, [chat("instructor", "Hi"), browser("click")])
    demonstration(src, iid, [chat("instructor", "Hi"), browser("click")])
    demonstration(src, "zzzzzzz", [chat("instructor", "Hi"), browser("click")])  # in no split
    report, items = convert(src)
    rows = {item.sample.metadata.id: item for item in items}
    assert {ident: (item.split, item.variant) for ident, item in rows.items()} == {
        f"weblinx_{valid}_2": ("validation", "weblinx"),
        f"weblinx_{valid}_3": ("validation", "weblinx"),
        f"weblinx_{valid}_4": ("validation", "weblinx"),
        f"weblinx_{valid}_5": ("validation", "weblinx"),
        f"weblinx_{train}_1": ("train", "weblinx"),
        f"weblinx_{iid}_1": ("test", "weblinx_test_iid"),
    }
    assert [answer(rows[f"weblinx_{valid}_{i}"])["actions"] for i in (2, 3, 4, 5)] == [
        [{"action": "click", "coordinate": [500, 500]}],  # (768, 373) in the 1536 x 746 viewport
        [{"action": "click", "coordinate": [499, 71]}],
        [{"action": "mouse_move", "coordinate": [0, 0]}],
        [{"action": "click", "coordinate": [499, 71]}, {"action": "type", "text": "Oslo"}],
    ]
    text = rows[f"weblinx_{valid}_2"].sample.messages[0]["content"][1]["text"]
    assert (
        text
        == "Dialogue so far:\ninstructor: Search for flights to Oslo\nWhat does the navigator do next on this page?"
    )
    assert rows[f"weblinx_{valid}_5"].sample.metadata.others["intent"] == "textInput"
    assert dict(report.unmapped_actions) == {"weblinx.teleport": 1}
    assert report.records == 26 + 2 + 2 + 2
    assert dict(report.skipped) == {
        "action before any utterance": 1,
        SAY: 2 + 1 + 1 + 1,
        "textInput without text": 1,
        "target outside the viewport": 1,
        "malformed element bbox": 1,
        "turn without a viewport size": 1,
        "screenshot marked broken": 1,
        "missing screenshot": 1,
        "corrupt image": 1,
        **dict.fromkeys(weblinx._NO_GESTURE.values(), 1),
        "unmapped intent": 1,
        "malformed turn": 2,
        "demonstration in no WebLINX split (splits.json missing or silent)": 1,
    }


def test_split_file_rules(tmp_path: Path) -> None:
    path = tmp_path / "splits.json"
    path.write_text(json.dumps({"train": ["a"], "test_iid": ["a", "c"], "dev": ["b", "c"], "valid": ["b"], "x": ["d"]}))
    assert weblinx._read_splits(path) == {"a": "", "b": "valid", "c": "test_iid"}  # "" = in two splits
    path.write_text("[1, 2]")
    with pytest.raises(StoreError, match=r"not WebLINX's splits\.json"):
        weblinx._read_splits(path)


def test_registers_under_its_name() -> None:
    seen: dict[str, tuple[Converter, str]] = {}

    def register(name: str, obj: Converter, /, *, description: str = "", **meta: Any) -> None:
        seen[name] = (obj, description)

    weblinx.cua_data_register_converters(register)
    assert seen["weblinx"][0] is convert_weblinx
    assert "WebLINX" in seen["weblinx"][1]
