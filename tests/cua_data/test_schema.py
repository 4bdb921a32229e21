from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cua_data.errors import SampleError
from cua_data.schema import LiteSample, Metadata, RLStep, RLTrace


def _row(messages: list[dict[str, Any]], images: int = 1, **meta: Any) -> LiteSample:
    metadata = Metadata("desktop", "grounding.action", others={"id": "r1"})
    for key, value in meta.items():
        setattr(metadata, key, value)
    return LiteSample(metadata, messages, [f"cua-lite/D/images/aa/{'a' * 64}.png"] * images)


def _click(x: float = 500, y: float = 300) -> dict[str, Any]:
    return {
        "id": "call_0000",
        "type": "function",
        "function": {"name": "computer", "arguments": {"actions": [{"action": "click", "coordinate": [x, y]}]}},
    }


USER = {"role": "user", "content": [{"type": "image", "index": 0}, {"type": "text", "text": "Click OK"}]}


def test_real_cua_lite_rows_are_valid(shared_fixtures: Path) -> None:
    examples = json.loads((shared_fixtures / "datasets/cua_lite/litesample_examples.json").read_text())
    real = examples["real_row_aguvis_ricosca_0_0"]
    row = {"images": real["images"], "messages": json.dumps(real["messages"]), "metadata": json.dumps(real["metadata"])}
    sample = LiteSample.from_row(row).validate()
    assert sample.metadata.platform == "mobile"
    assert sample.metadata.resolution == (540, 960)
    assert sample.metadata.source == "xlangai/aguvis-stage1"
    # the spec rows carry no metadata in the doc: give them the dims their names say
    dims = {
        "spec_understanding": ("desktop", "understanding"),
        "spec_grounding_action_desktop": ("desktop", "grounding.action"),
        "spec_grounding_action_mobile": ("mobile", "grounding.action"),
        "spec_grounding_point": ("desktop", "grounding.point"),
        "spec_grounding_bbox": ("desktop", "grounding.bbox"),
        "spec_use_desktop": ("desktop", "use"),
    }
    for key, (platform, task_type) in dims.items():
        messages = examples[key]["messages"]
        n_images = 1 + sum(1 for m in messages if m["role"] == "tool")
        spec = LiteSample(Metadata(platform, task_type), messages, ["x/images/aa/b.png"] * n_images)
        assert spec.problems() == [], key


def test_row_round_trip_keeps_everything() -> None:
    sample = _row([USER, {"role": "assistant", "tool_calls": [_click()]}])
    sample.rl = RLTrace("truncated", 0.5, [RLStep([1, 2, 3], [-0.1, -0.2, -0.3], 0.5)])
    back = LiteSample.from_row(sample.to_row())
    assert back.messages == sample.messages
    assert back.metadata == sample.metadata
    assert back.rl == sample.rl


@pytest.mark.parametrize(
    ("messages", "fragment"),
    [
        ([], "messages: must be a non-empty list"),
        ([{"role": "robot", "content": "x"}], "messages[0].role: 'robot'"),
        (
            [{"role": "user", "content": [{"type": "image", "index": 3}]}],
            "messages[0].content[0].index: 3 references no image",
        ),
        ([{"role": "user", "content": [{"type": "image", "index": True}]}], "references no image"),
        ([USER, {"role": "assistant", "content": "plain"}], "assistant content must be a list"),
        (
            [USER, {"role": "assistant", "content": [{"type": "image", "index": 0}]}],
            "'image' is not allowed for assistant",
        ),
        ([USER, {"role": "tool", "tool_call_id": "nope", "content": []}], "'nope' answers no earlier tool call"),
        ([USER, {"role": "user", "tool_calls": [_click()]}], "only assistant messages make tool calls"),
        (
            [
                USER,
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "type": "function", "function": {"name": "shell", "arguments": {}}}],
                },
            ],
            "'shell' is not computer, mobile",
        ),
        (
            [
                USER,
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "function": {"name": "point", "arguments": {"coordinate": [1, 2, 3]}}}],
                },
            ],
            "is not 2 numbers in [0, 1000]",
        ),
        (
            [
                USER,
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c", "function": {"name": "computer", "arguments": {"actions": [{"action": "fly"}]}}}
                    ],
                },
            ],
            "unknown CUA-Lite action 'fly'",
        ),
        (
            [
                USER,
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "function": {"name": "computer", "arguments": "click"}}],
                },
            ],
            "arguments: must be a dict",
        ),
    ],
)
def test_message_problems_name_the_field(messages: list[dict[str, Any]], fragment: str) -> None:
    problems = _row(messages).problems()
    assert any(fragment in p for p in problems), problems


@pytest.mark.parametrize(
    ("metadata", "fragment"),
    [
        ({"metadata_kind": "cua", "dims": ["desktop", "use"], "others": {}, "extra": 1}, "unknown key(s) 'extra'"),
        ({"metadata_kind": "weird"}, "metadata_kind: 'weird'"),
        ({"metadata_kind": "cua", "dims": ["tv", "use"], "others": {}}, "platform 'tv'"),
        ({"metadata_kind": "cua", "dims": ["desktop", "chat"], "others": {}}, "task type 'chat'"),
        ({"metadata_kind": "cua", "dims": "desktop", "others": {}}, "must be [platform, task_type]"),
        ({"metadata_kind": "cua", "dims": ["desktop", "use"], "others": {"resolution": [0, 10]}}, "others.resolution"),
        ({"metadata_kind": "cua", "dims": ["desktop", "use"], "others": {"id": 5}}, "others.id: must be a str"),
        ({"metadata_kind": "cua", "dims": ["desktop", "use"], "valid_actions": "click", "others": {}}, "valid_actions"),
    ],
)
def test_metadata_problems(metadata: dict[str, Any], fragment: str) -> None:
    with pytest.raises(SampleError) as info:
        Metadata.from_dict(metadata)
    assert fragment in str(info.value)


def test_generic_metadata() -> None:
    meta = Metadata.from_dict({"metadata_kind": "generic", "others": {"id": "g"}})
    assert meta.kind == "generic"
    assert meta.to_dict() == {"metadata_kind": "generic", "others": {"id": "g"}}


def test_out_of_range_coordinates_are_found() -> None:
    sample = _row([USER, {"role": "assistant", "tool_calls": [_click(1000.5, 3)]}])
    assert sample.out_of_range() == ["messages[1].tool_calls[0]: coordinate [1000.5, 3] is outside [0, 1000]"]
    assert _row([USER, {"role": "assistant", "tool_calls": [_click(1000, 0)]}]).out_of_range() == []


def test_validate_names_the_row() -> None:
    with pytest.raises(SampleError, match=r"file.parquet row 7: row 'r1': messages\[0\].role"):
        _row([{"role": "robot"}]).validate("file.parquet row 7")


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ({"images": [], "messages": "{bad", "metadata": "{}"}, "messages: not valid JSON"),
        ({"images": [], "messages": "[]"}, "metadata: missing"),
        (
            {
                "images": [],
                "messages": "[]",
                "metadata": json.dumps({"metadata_kind": "generic", "others": {}}),
                "rl": json.dumps({"status": "exploded"}),
            },
            "rl.status: 'exploded'",
        ),
        (
            {
                "images": [],
                "messages": "[]",
                "metadata": json.dumps({"metadata_kind": "generic", "others": {}}),
                "rl": json.dumps({"status": "completed", "steps": [{"response_tokens": [1], "logprobs": [0.1, 0.2]}]}),
            },
            "2 logprobs for 1 tokens",
        ),
    ],
)
def test_bad_stored_rows(row: dict[str, Any], fragment: str) -> None:
    with pytest.raises(SampleError, match=r"where\.parquet row 3") as info:
        LiteSample.from_row(row, "where.parquet row 3")
    assert fragment in str(info.value)


def test_rows_need_store_paths_before_storage() -> None:
    with pytest.raises(SampleError, match="through a DatasetWriter"):
        LiteSample(Metadata("desktop", "use"), [USER], [b"\x89PNG"]).to_row()
