from __future__ import annotations

import contextlib
from typing import Any

import msgpack
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cua_core.codec import BLOB_THRESHOLD, PROTOCOL_VERSION, decode, encode
from cua_core.errors import MalformedMessage, ProtocolError, VersionMismatch


def test_small_body_stays_in_one_frame() -> None:
    frames = encode("req", {"x": 1, "data": b"a" * 100}, id=7, method="echo")
    assert len(frames) == 1
    env = decode(frames)
    assert (env.kind, env.id, env.method, env.body) == (
        "req",
        7,
        "echo",
        {"x": 1, "data": b"a" * 100},
    )


def test_large_bytes_travel_as_their_own_frame_uncopied() -> None:
    shot = bytes(range(256)) * 2000
    frames = encode("rep", {"png": shot, "meta": {"w": 1280}}, id=1)
    assert len(frames) == 2
    assert frames[1] is shot  # handed to ZeroMQ as is
    assert len(frames[0]) < 100  # the envelope holds only a reference
    env = decode(frames)
    assert isinstance(env.body["png"], memoryview)
    assert bytes(env.body["png"]) == shot
    assert env.body["meta"] == {"w": 1280}


def test_threshold_boundary() -> None:
    assert len(encode("rep", b"x" * (BLOB_THRESHOLD - 1))) == 1
    assert len(encode("rep", b"x" * BLOB_THRESHOLD)) == 2


@pytest.mark.parametrize(
    "array",
    [
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.zeros((800, 1280, 3), dtype=np.uint8),
        np.array([1.5, -2.0], dtype=">f8"),  # non-native byte order survives
        np.arange(20, dtype=np.int64)[::3],  # non-contiguous is made contiguous
        np.array(3, dtype=np.int16),  # zero-dimensional
        np.array([True, False]),
    ],
)
def test_ndarray_round_trip_without_pickle(array: np.ndarray[Any, Any]) -> None:
    frames = encode("rep", {"a": array, "list": [array]}, id=1)
    assert b"pickle" not in bytes(frames[0])
    env = decode(frames)
    for got in (env.body["a"], env.body["list"][0]):
        assert got.dtype == array.dtype
        assert got.shape == array.shape
        np.testing.assert_array_equal(got, array)


def test_object_arrays_are_refused_at_the_sender() -> None:
    with pytest.raises(TypeError, match="pickle"):
        encode("rep", np.array([object()], dtype=object))


def test_unencodable_values_and_keys_are_named() -> None:
    with pytest.raises(TypeError, match="keys must be str"):
        encode("rep", {1: "x"})
    with pytest.raises(TypeError, match="cannot encode rep body"):
        encode("rep", {"x": object()})


def test_numpy_scalars_become_plain_numbers() -> None:
    assert decode(encode("rep", {"r": np.float32(0.5)})).body == {"r": 0.5}


def _packed(**fields: Any) -> list[bytes]:
    env = {"v": PROTOCOL_VERSION, "kind": "req", "id": 1, "ts": 1.0, "method": "m", "body": {}}
    env.update(fields)
    return [msgpack.packb({k: v for k, v in env.items() if v is not _DROP})]


_DROP = object()


@pytest.mark.parametrize(
    ("frames", "fragment"),
    [
        ([], "empty message"),
        ([b"\xc1"], "not valid msgpack"),
        ([msgpack.packb([1, 2])], "must be a map"),
        (_packed(kind="bogus"), "kind 'bogus'"),
        (_packed(id=1.5), "id must be"),
        (_packed(id=True), "id must be"),
        (_packed(ts="now"), "ts must be a number"),
        (_packed(method=None), "needs a str method"),
        (_packed(kind="event", topic=3), "needs a str topic"),
        (_packed(body=_DROP), "no body"),
        (
            [msgpack.packb({"v": 1, "kind": "rep", "id": 1, "ts": 1.0, "body": msgpack.ExtType(9, b"")})],
            "extension type 9",
        ),
        (
            [
                msgpack.packb(
                    {
                        "v": 1,
                        "kind": "rep",
                        "id": 1,
                        "ts": 1.0,
                        "body": msgpack.ExtType(1, (3).to_bytes(4, "little")),
                    }
                )
            ],
            "binary frame 3",
        ),
        (
            [
                msgpack.packb(
                    {
                        "v": 1,
                        "kind": "rep",
                        "id": 1,
                        "ts": 1.0,
                        "body": msgpack.ExtType(2, msgpack.packb(["|O", [1], 0])),
                    }
                ),
                b"x" * 8,
            ],
            "bad ndarray",
        ),
        (
            [
                msgpack.packb(
                    {
                        "v": 1,
                        "kind": "rep",
                        "id": 1,
                        "ts": 1.0,
                        "body": msgpack.ExtType(2, msgpack.packb(["<f4", [3], 0])),
                    }
                ),
                b"x" * 5,
            ],
            "bad ndarray",
        ),
    ],
)
def test_malformed_messages_name_the_fault(frames: list[bytes], fragment: str) -> None:
    with pytest.raises(MalformedMessage, match=fragment):
        decode(frames)


def test_version_mismatch_names_both_versions() -> None:
    with pytest.raises(VersionMismatch, match=r"v=2.*v=1") as info:
        decode(_packed(v=2))
    assert info.value.got == 2


@settings(max_examples=500)
@given(st.lists(st.binary(max_size=64), min_size=1, max_size=3))
def test_decode_of_arbitrary_frames_raises_only_protocol_errors(frames: list[bytes]) -> None:
    with contextlib.suppress(ProtocolError):
        decode(frames)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text()
    | st.binary(max_size=3000),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _plain(value: Any) -> Any:
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@settings(max_examples=300)
@given(_json)
def test_any_body_round_trips(body: Any) -> None:
    assert _plain(decode(encode("rep", body, id="x")).body) == body
