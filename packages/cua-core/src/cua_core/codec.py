"""The one wire format of the bus: a msgpack envelope plus raw binary frames.

Every message is ``[envelope, *blobs]``. The envelope is a msgpack map
``{v, kind, id, ts, topic|method, body}``. Large bytes-like values and every numpy array in the body
leave the msgpack document and travel as their own ZeroMQ frames, referenced from the body by a
msgpack extension: a screenshot is handed to ZeroMQ as it is on the way out and read in place on the
way in, never copied into (or out of) a msgpack buffer. Nothing is ever pickled.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgpack
import numpy as np

from cua_core.errors import MalformedMessage, VersionMismatch

__all__ = [
    "BLOB_THRESHOLD",
    "KINDS",
    "PROTOCOL_VERSION",
    "Envelope",
    "decode",
    "encode",
]

PROTOCOL_VERSION = 1

# Smaller values stay inside the msgpack document: a separate frame costs more than copying them.
BLOB_THRESHOLD = 1024

# What an envelope can be: RPC request, reply, error reply and heartbeat, and a published event.
KINDS = frozenset({"req", "rep", "err", "hb", "event"})

_EXT_BLOB = 1
_EXT_NDARRAY = 2

_packer_default_error = "body values must be None, bool, int, float, str, bytes, list, dict or ndarray"

Frame = bytes | bytearray | memoryview


@dataclass(slots=True)
class Envelope:
    """A decoded message. Blobs in ``body`` are read-only memoryviews or arrays over the frames."""

    kind: str
    id: int | str | None
    body: Any
    ts: float
    topic: str | None = None
    method: str | None = None


def encode(
    kind: str,
    body: Any = None,
    *,
    id: int | str | None = None,
    topic: str | None = None,
    method: str | None = None,
) -> list[Frame]:
    """Frames for one message: the packed envelope, then one frame per blob in ``body``."""
    blobs: list[Frame] = []
    env: dict[str, Any] = {
        "v": PROTOCOL_VERSION,
        "kind": kind,
        "id": id,
        "ts": time.time(),
        "body": _extract(body, blobs),
    }
    if topic is not None:
        env["topic"] = topic
    if method is not None:
        env["method"] = method
    try:
        head = msgpack.packb(env, use_bin_type=True)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"cannot encode {kind} body: {exc}; {_packer_default_error}") from exc
    return [head, *blobs]


_ATOMS = frozenset({str, int, float, bool, type(None)})
_BINARY = (bytes, bytearray, memoryview)


def _extract(value: Any, blobs: list[Frame]) -> Any:
    """The body with big binary values and arrays moved out into ``blobs``.

    Containers are copied only when something inside them moved, so the common small body costs
    one pass of type checks (this runs for every message, so it is written for speed).
    """
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is dict:
        out = None
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"body keys must be str, got {type(key).__name__} key {key!r}")
            if type(item) in _ATOMS:
                continue
            moved = _extract(item, blobs)
            if moved is not item:
                if out is None:
                    out = dict(value)
                out[key] = moved
        return value if out is None else out
    if kind is list or kind is tuple:
        items = [_extract(item, blobs) for item in value]
        return items if kind is tuple or any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, _BINARY):
        if len(value) < BLOB_THRESHOLD:
            return value
        blobs.append(value)
        return msgpack.ExtType(_EXT_BLOB, (len(blobs) - 1).to_bytes(4, "little"))
    if isinstance(value, dict):  # a dict subclass: check it the slow way
        return _extract(dict(value), blobs)
    if isinstance(value, list | tuple):
        return _extract(list(value), blobs)
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise TypeError(
                f"cannot send an ndarray of dtype {value.dtype}: object arrays would need pickle; "
                "convert to a numeric dtype or to lists"
            )
        # ascontiguousarray would turn a 0-d array into 1-d, so keep the original shape.
        array = value if value.flags.c_contiguous else np.ascontiguousarray(value)
        blobs.append(array.reshape(-1).view(np.uint8).data)
        meta = msgpack.packb([value.dtype.str, list(value.shape), len(blobs) - 1])
        return msgpack.ExtType(_EXT_NDARRAY, meta)
    if isinstance(value, np.generic):
        return value.item()
    return value


def decode(frames: Sequence[Any]) -> Envelope:
    """Decode ``[envelope, *blobs]``; raise MalformedMessage or VersionMismatch naming the fault.

    Frames may be bytes or ``zmq.Frame`` objects (received with ``copy=False``); blobs are then
    exposed without copying.
    """
    if not frames:
        raise MalformedMessage("empty message: expected an envelope frame")
    blobs = frames[1:]

    def ext_hook(code: int, data: bytes) -> Any:
        if code == _EXT_BLOB:
            return _blob(blobs, int.from_bytes(data, "little"))
        if code == _EXT_NDARRAY:
            return _array(blobs, data)
        raise MalformedMessage(f"unknown msgpack extension type {code} in the envelope")

    try:
        env = msgpack.unpackb(_buffer(frames[0]), raw=False, ext_hook=ext_hook)
    except MalformedMessage:
        raise
    except Exception as exc:  # msgpack raises many types for bad input; all mean the same here
        raise MalformedMessage(f"envelope is not valid msgpack: {type(exc).__name__}: {exc}") from exc
    # Exact type checks (not isinstance with unions): this runs for every message.
    if type(env) is not dict:
        raise MalformedMessage(f"envelope must be a map, got {type(env).__name__}")
    get = env.get
    version = get("v")
    if version != PROTOCOL_VERSION or type(version) is not int:
        raise VersionMismatch(version, PROTOCOL_VERSION)
    kind = get("kind")
    if kind not in KINDS:
        raise MalformedMessage(f"envelope kind {kind!r} is not one of {', '.join(sorted(KINDS))}")
    msg_id = get("id")
    if msg_id is not None and type(msg_id) is not int and type(msg_id) is not str:
        raise MalformedMessage(f"envelope id must be an int, str or nil, got {msg_id!r}")
    ts = get("ts")
    if type(ts) is not float and type(ts) is not int:
        raise MalformedMessage(f"envelope ts must be a number, got {ts!r}")
    topic = get("topic")
    method = get("method")
    if kind == "req":
        if type(method) is not str:
            raise MalformedMessage(f"request envelope needs a str method, got {method!r}")
    elif kind == "event" and type(topic) is not str:
        raise MalformedMessage(f"event envelope needs a str topic, got {topic!r}")
    if "body" not in env:
        raise MalformedMessage("envelope has no body field")
    return Envelope(kind, msg_id, env["body"], ts, topic, method)


def _buffer(frame: Any) -> Any:
    """The bytes of a frame without copying: zmq.Frame exposes ``.buffer``."""
    return getattr(frame, "buffer", frame)


def _blob(blobs: Sequence[Any], index: int) -> memoryview:
    if index >= len(blobs):
        raise MalformedMessage(f"envelope references binary frame {index} but the message has {len(blobs)}")
    return memoryview(_buffer(blobs[index]))


def _array(blobs: Sequence[Any], data: bytes) -> np.ndarray[Any, Any]:
    try:
        dtype_str, shape, index = msgpack.unpackb(data)
        dtype = np.dtype(dtype_str)
        if dtype.hasobject:
            raise ValueError(f"object dtype {dtype_str!r} is not allowed")
        buf = _blob(blobs, index)
        return np.frombuffer(buf, dtype=dtype).reshape(tuple(shape))
    except MalformedMessage:
        raise
    except Exception as exc:
        raise MalformedMessage(f"bad ndarray reference in the envelope: {exc}") from exc
