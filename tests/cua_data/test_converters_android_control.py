"""AndroidControl: GZIP TFRecord episodes, on records these tests build from the documented fields.

No real AndroidControl record was available where the converter was written (the fixture folder
holds only Google's format README), so every record here is written by this module from that
README's field list (``episode_id``, ``goal``, ``screenshots``, ``accessibility_trees``,
``screenshot_widths``/``heights``, ``actions``, ``step_instructions``) with its own small protobuf
and TFRecord encoder; the decoder is also checked against Google's protobuf runtime where it is
installed. The converter is unverified against real AndroidControl files.
"""

from __future__ import annotations

import gzip
import io
import json
import struct
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from cua_data import DatasetReader, LiteSample, run_conversion
from cua_data.converters._tfrecord import crc32c, parse_example

SIZE = (108, 240)  # a small portrait phone screen, in pixels
OPEN_APP_FORM = "android_control open_app: no unified action launches an app"

# --- a minimal writer: protobuf wire format, tf.train.Example, TFRecord framing --------------------


def varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # int64 is written as its 64-bit two's complement
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def feature(values: list[Any], packed: bool = True) -> bytes:
    if all(isinstance(v, bytes) for v in values):
        return field(1, b"".join(field(1, v) for v in values))
    if all(isinstance(v, int) for v in values):
        body = field(1, b"".join(map(varint, values))) if packed else b"".join(varint(8) + varint(v) for v in values)
        return field(3, body)
    return field(2, field(1, struct.pack(f"<{len(values)}f", *values)))


def example(features: dict[str, list[Any]], packed: bool = True) -> bytes:
    entries = b"".join(
        field(1, field(1, name.encode()) + field(2, feature(values, packed))) for name, values in features.items()
    )
    return field(1, entries)


def masked(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF  # TensorFlow's crc32c::Mask


def frame(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked(length)) + data + struct.pack("<I", masked(data))


def png(color: tuple[int, int, int], size: tuple[int, int] = SIZE) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


def record(
    episode_id: int, goal: str, actions: list[dict[str, Any]], instructions: list[str] | None = None
) -> dict[str, list[Any]]:
    """An episode's features as the README documents them: one more screenshot than actions."""
    shots = len(actions) + 1
    features: dict[str, list[Any]] = {
        "episode_id": [episode_id],
        "goal": [goal.encode()],
        "screenshots": [png((episode_id % 250, n, 0)) for n in range(shots)],
        "accessibility_trees": [b"\x0a\x00"] * shots,  # serialized trees; the converter does not read them
        "screenshot_widths": [SIZE[0]] * shots,
        "screenshot_heights": [SIZE[1]] * shots,
        "actions": [json.dumps(a).encode() for a in actions],
        "step_instructions": [(s or f"step {n}").encode() for n, s in enumerate(instructions or [""] * len(actions))],
    }
    return features


def write(path: Path, records: list[bytes], compress: bool = True) -> Path:
    data = b"".join(frame(r) for r in records)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def actions(sample: LiteSample) -> list[list[dict[str, Any]]]:
    calls = [m for m in sample.messages if m["role"] == "assistant" and "tool_calls" in m]
    return [call["tool_calls"][0]["function"]["arguments"]["actions"] for call in calls]


def test_crc32c_known_answers() -> None:
    # RFC 3720 (iSCSI) B.4 vectors and the usual check value.
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c(bytes(range(32))) == 0x46DD794E


def test_decoder_agrees_with_protobuf_runtime() -> None:
    descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
    descriptor_pool = pytest.importorskip("google.protobuf.descriptor_pool")
    message_factory = pytest.importorskip("google.protobuf.message_factory")

    f = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="example_test.proto", package="tensorflow", syntax="proto3")
    for name, kind in (("BytesList", f.TYPE_BYTES), ("FloatList", f.TYPE_FLOAT), ("Int64List", f.TYPE_INT64)):
        proto.message_type.add(name=name).field.add(name="value", number=1, label=f.LABEL_REPEATED, type=kind)
    feat = proto.message_type.add(name="Feature")
    feat.oneof_decl.add(name="kind")
    for number, name in enumerate(("bytes_list", "float_list", "int64_list"), 1):
        type_name = ".tensorflow." + name.title().replace("_", "")
        feat.field.add(name=name, number=number, label=f.LABEL_OPTIONAL, type=f.TYPE_MESSAGE, type_name=type_name)
        feat.field[-1].oneof_index = 0
    features = proto.message_type.add(name="Features")
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, label=f.LABEL_OPTIONAL, type=f.TYPE_STRING)
    entry.field.add(
        name="value", number=2, label=f.LABEL_OPTIONAL, type=f.TYPE_MESSAGE, type_name=".tensorflow.Feature"
    )
    features.field.add(
        name="feature",
        number=1,
        label=f.LABEL_REPEATED,
        type=f.TYPE_MESSAGE,
        type_name=".tensorflow.Features.FeatureEntry",
    )
    proto.message_type.add(name="Example").field.add(
        name="features", number=1, label=f.LABEL_OPTIONAL, type=f.TYPE_MESSAGE, type_name=".tensorflow.Features"
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    message = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.Example"))()
    message.features.feature["screenshots"].bytes_list.value.extend([png((1, 2, 3)), b""])
    message.features.feature["episode_id"].int64_list.value.extend([7, -2, 2**40])
    message.features.feature["scores"].float_list.value.extend([0.5, -1.25])
    message.features.feature["empty"].SetInParent()
    assert parse_example(message.SerializeToString()) == {
        "screenshots": [png((1, 2, 3)), b""],
        "episode_id": [7, -2, 2**40],
        "scores": [0.5, -1.25],
        "empty": [],
    }
    ours: dict[str, list[Any]] = {"n": [5, -1], "b": [b"x"], "f": [2.0]}
    assert parse_example(example(ours)) == parse_example(example(ours, packed=False)) == ours


EPISODE: list[dict[str, Any]] = [
    {"action_type": "open_app", "app_name": "Clock"},
    {"action_type": "click", "x": 54, "y": 120},
    {"action_type": "scroll", "direction": "down"},
    {"action_type": "type", "text": "7 am", "x": 10, "y": 239},
    {"action_type": "input_text", "text": "wake up"},
    {"action_type": "long_press", "x": 0, "y": 0},
    {"action_type": "navigate_back"},
    {"action_type": "navigate_home"},
    {"action_type": "wait"},
]


def test_episode_maps_every_documented_action(tmp_path: Path) -> None:
    instructions = [f"instruction {n}" for n in range(len(EPISODE))]
    first = example(record(101, "Set an alarm for 7 am in Clock", EPISODE, instructions))
    second = example(record(102, "Go home", [{"action_type": "navigate_home"}]), packed=False)
    write(tmp_path / "src/android_control-00000-of-00002", [first])
    write(tmp_path / "src/extra.tfrecord", [second], compress=False)  # uncompressed, found by its name
    (tmp_path / "src/splits.json").write_text(json.dumps({"train": [101, 102]}))  # beside the shards; not data
    report = run_conversion("android_control", tmp_path / "src", tmp_path / "out")
    assert (report["records"], report["samples"], report["skipped"]) == (2, 2, {})
    assert report["unmapped_actions"] == {OPEN_APP_FORM: 1}  # the leading open_app, dropped and counted
    assert report["written"]["rows"] == {"mobile/use/train/default.parquet": 2}
    by_id = {s.metadata.id: s for s in DatasetReader(tmp_path / "out")}
    sample = by_id["android_control_101"]
    others = sample.metadata.others
    assert others["source"] == "google-research/android_control"
    assert (others["source_id"], others["os"], others["resolution"]) == ("101", "android", list(SIZE))
    assert (others["first_step"], others["opened_app"]) == (2, "Clock")
    assert sample.messages[0]["content"][1]["text"] == "Set an alarm for 7 am in Clock"
    # Pixels of a 108 x 240 screen -> the pixel's centre in [0, 1000]: (px + 0.5) * 1000 / size.
    assert actions(sample) == [
        [{"action": "tap", "coordinate": [505, 502], "clicks": 1}],
        [{"action": "swipe", "start_coordinate": [500, 500], "coordinate": [500, 0]}],  # down: the finger goes up
        [
            {"action": "tap", "coordinate": [97, 998], "clicks": 1},
            {"action": "type", "text": "7 am"},
            {"action": "system_button", "button": "Enter"},
        ],
        [{"action": "type", "text": "wake up"}],
        [{"action": "long_press", "coordinate": [5, 2], "duration": 1.0}],
        [{"action": "system_button", "button": "Back"}],
        [{"action": "system_button", "button": "Home"}],
        [{"action": "wait", "duration": 1.0}],
    ]
    descriptions = [
        part["text"]
        for message in sample.messages
        for part in message.get("content") or []
        if message["role"] == "assistant" and part["type"] == "action_description"
    ]
    assert descriptions == instructions[1:]  # the low-level step instructions, one per action
    # The screen each action acts on, from screenshot 1 (after open_app); no terminate, so no final screen.
    assert len(sample.images) == 8
    assert sample.messages[-1]["role"] == "assistant"
    assert by_id["android_control_102"].metadata.others.get("first_step") is None


@pytest.mark.parametrize(
    ("action", "form"),
    [
        ({"action_type": "double_tap", "x": 1, "y": 1}, "android_control double_tap"),
        ({"action_type": "click", "x": 108, "y": 5}, "android_control click: coordinate outside the screen"),
        ({"action_type": "click", "x": "5"}, "android_control click: no x, y"),
        (
            {"action_type": "scroll", "direction": "sideways"},
            "android_control scroll: direction not up, down, left or right",
        ),
        ({"action_type": "open_app", "app_name": "Maps"}, OPEN_APP_FORM),  # not leading: no row can hold it
        ({"x": 1}, "android_control: no action_type"),
    ],
)
def test_unknown_or_malformed_action_skips_the_episode(tmp_path: Path, action: dict[str, Any], form: str) -> None:
    steps = [{"action_type": "click", "x": 5, "y": 5}, action]
    write(tmp_path / "src/shard.tfrecord.gz", [example(record(7, "Do it", steps))])
    report = run_conversion("android_control", tmp_path / "src", tmp_path / "out")
    assert (report["records"], report["samples"]) == (1, 0)
    assert report["skipped"] == {"unmapped action": 1}
    assert report["unmapped_actions"] == {form: 1}


def test_damaged_files(tmp_path: Path) -> None:
    good = [example(record(n, f"goal {n}", [{"action_type": "navigate_home"}])) for n in range(4)]
    framed = frame(good[1])
    # A complete gzip stream whose second record stops half way.
    (tmp_path / "src").mkdir()
    (tmp_path / "src/a.tfrecord").write_bytes(gzip.compress(frame(good[0]) + framed[: len(framed) // 2]))
    # A damaged length: its checksum no longer matches, so nothing after it can be framed.
    bad = bytearray(frame(good[2]))
    bad[0] ^= 0x01
    (tmp_path / "src/b.tfrecord").write_bytes(gzip.compress(bytes(bad) + frame(good[3])))
    # Framing intact, payload not an Example: that record is skipped and the next one still read.
    write(tmp_path / "src/c.tfrecord", [b"\x0a\x05\x0a\x03\x0a\x01", good[3]])
    # A gzip file cut short.
    whole = gzip.compress(frame(good[0]) * 3)
    (tmp_path / "src/d.tfrecord").write_bytes(whole[: len(whole) - 20])
    report = run_conversion("android_control", tmp_path / "src", tmp_path / "out")
    assert report["skipped"] == {
        "truncated record": 1,
        "corrupt record framing (length checksum mismatch)": 1,
        "not a tf.train.Example": 1,
        "corrupt gzip stream": 1,
    }
    assert report["examples"]["truncated record"] == "a.tfrecord after record 1"
    # a: 1 + 1 broken; b: 1 broken; c: 2; d: whatever was read before the cut (all one episode id).
    assert report["samples"] == report["records"] - 4
    assert report["samples"] >= 3


@pytest.mark.parametrize(
    ("override", "reason"),
    [
        ({"screenshot_widths": [SIZE[0]]}, "malformed episode (list lengths disagree)"),
        ({"step_instructions": [b"a", b"b"]}, "malformed episode (list lengths disagree)"),
        ({"screenshot_heights": [SIZE[1] + 1] * 2}, "screenshot size disagrees with screenshot_widths/heights"),
        ({"goal": [b"  "]}, "empty goal"),
        ({"goal": [1]}, "malformed episode (missing or mistyped feature)"),
        ({"screenshots": [b"not a png"] * 2}, "corrupt image"),
    ],
)
def test_malformed_episode_is_skipped(tmp_path: Path, override: dict[str, list[Any]], reason: str) -> None:
    features = record(9, "Go home", [{"action_type": "navigate_home"}]) | override
    write(tmp_path / "src/x.tfrecord", [example(features)])
    report = run_conversion("android_control", tmp_path / "src", tmp_path / "out")
    assert (report["records"], report["samples"]) == (1, 0)
    assert report["skipped"] == {reason: 1}


def test_missing_feature_is_skipped(tmp_path: Path) -> None:
    features = record(9, "Go home", [{"action_type": "navigate_home"}])
    del features["actions"]
    write(tmp_path / "src/x.tfrecord", [example(features)])
    report = run_conversion("android_control", tmp_path / "src", tmp_path / "out")
    assert report["skipped"] == {"malformed episode (missing or mistyped feature)": 1}
