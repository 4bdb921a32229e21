"""TFRecord files of ``tf.train.Example`` read without TensorFlow: the framing and a small protobuf decoder.

Framing (TensorFlow's ``record_writer.cc``), repeated to the end of the file: ``u64`` length,
``u32`` masked CRC-32C of those 8 bytes, the data, ``u32`` masked CRC-32C of the data, all little
endian. The length's checksum is verified (8 bytes: cheap in pure Python) so a damaged length is
caught before it is trusted; the data's checksum is read but NOT verified, because no CRC-32C
package is installed here and a pure-Python CRC over megabytes of PNG per record is too slow. A
damaged payload still fails below, in the protobuf decoder or when its PNG is read.

``tf.train.Example`` (``example.proto``/``feature.proto``): ``Example{features=1}``,
``Features{map<string, Feature> feature=1}``, ``Feature{oneof bytes_list=1, float_list=2,
int64_list=3}``, each list ``repeated value=1``, numbers packed or unpacked. Files may be GZIP
compressed (AndroidControl's are); the gzip magic decides, not the name.
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["Example", "ExampleError", "RecordError", "crc32c", "masked_crc32c", "parse_example", "read_records"]

Example = dict[str, list[bytes] | list[float] | list[int]]
_MASK_DELTA = 0xA282EAD8  # TensorFlow's crc32c::Mask constant
_GZIP_MAGIC = b"\x1f\x8b"


def _table() -> list[int]:
    table = []
    for n in range(256):
        crc = n
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1  # CRC-32C (Castagnoli), reflected
        table.append(crc)
    return table


_TABLE = _table()


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


class RecordError(Exception):
    """The file cannot be read past this point (framing lost); the message is the report's reason."""


class ExampleError(Exception):
    """One record's payload is not a well-formed ``tf.train.Example``."""


def _open(path: Path) -> io.BufferedIOBase:
    with path.open("rb") as probe:
        gzipped = probe.read(2) == _GZIP_MAGIC
    return gzip.open(path, "rb") if gzipped else path.open("rb")


def _read(stream: io.BufferedIOBase, size: int) -> bytes:
    try:
        return stream.read(size)
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError; a cut gzip is EOFError
        raise RecordError("corrupt gzip stream") from exc


def read_records(path: Path) -> Iterator[bytes]:
    """Each record's data in file order, one at a time (memory holds one record)."""
    with _open(path) as stream:
        while True:
            header = _read(stream, 12)
            if not header:
                return
            if len(header) < 12:
                raise RecordError("truncated record")
            if struct.unpack_from("<I", header, 8)[0] != masked_crc32c(header[:8]):
                raise RecordError("corrupt record framing (length checksum mismatch)")
            (length,) = struct.unpack_from("<Q", header)
            data = _read(stream, length)
            if len(data) < length or len(_read(stream, 4)) < 4:
                raise RecordError("truncated record")
            yield data


# --- protobuf wire format ----------------------------------------------------------------------

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


def _varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while pos < end and shift < 70:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
    raise ExampleError("truncated or overlong varint")


def _fields(buf: bytes, pos: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """``(field, wire type, a, b)``: a varint or fixed number as ``a``; a length-delimited slice as ``[a, b)``."""
    while pos < end:
        key, pos = _varint(buf, pos, end)
        field, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, pos = _varint(buf, pos, end)
            yield field, wire, value, pos
        elif wire in (_I64, _I32):
            size = 8 if wire == _I64 else 4
            if pos + size > end:
                raise ExampleError("truncated fixed-width field")
            yield field, wire, pos, pos + size
            pos += size
        elif wire == _LEN:
            size, pos = _varint(buf, pos, end)
            if pos + size > end:
                raise ExampleError("length-delimited field runs past its message")
            yield field, wire, pos, pos + size
            pos += size
        else:
            raise ExampleError(f"unsupported wire type {wire} (groups are not used by tf.train.Example)")


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value  # int64 is two's complement in 10 varint bytes


def _bytes_list(buf: bytes, start: int, end: int) -> list[bytes]:
    out = []
    for field, wire, a, b in _fields(buf, start, end):
        if field == 1 and wire != _LEN:
            raise ExampleError(f"BytesList value of wire type {wire}")
        if field == 1:
            out.append(buf[a:b])
    return out  # other field numbers are unknown fields, which protobuf readers skip


def _float_list(buf: bytes, start: int, end: int) -> list[float]:
    out: list[float] = []
    for field, wire, a, b in _fields(buf, start, end):
        if field == 1 and wire == _LEN and (b - a) % 4 == 0:  # packed (how TensorFlow writes it)
            out.extend(struct.unpack_from(f"<{(b - a) // 4}f", buf, a))
        elif field == 1 and wire == _I32:  # unpacked: parsers must accept both
            out.append(struct.unpack_from("<f", buf, a)[0])
        elif field == 1:
            raise ExampleError(f"FloatList value of wire type {wire} ({b - a} bytes)")
    return out


def _int64_list(buf: bytes, start: int, end: int) -> list[int]:
    out = []
    for field, wire, a, b in _fields(buf, start, end):
        if field == 1 and wire == _LEN:  # packed
            pos = a
            while pos < b:
                value, pos = _varint(buf, pos, b)
                out.append(_signed(value))
        elif field == 1 and wire == _VARINT:  # unpacked
            out.append(_signed(a))
        elif field == 1:
            raise ExampleError(f"Int64List value of wire type {wire}")
    return out


_LISTS: dict[int, Callable[[bytes, int, int], list[bytes] | list[float] | list[int]]] = {
    1: _bytes_list,
    2: _float_list,
    3: _int64_list,
}


def _feature(buf: bytes, start: int, end: int) -> list[bytes] | list[float] | list[int]:
    value: list[bytes] | list[float] | list[int] = []
    for field, wire, a, b in _fields(buf, start, end):
        if field in _LISTS:
            if wire != _LEN:
                raise ExampleError(f"Feature field {field} has wire type {wire}")
            value = _LISTS[field](buf, a, b)  # a oneof: the last one set wins
    return value


def parse_example(data: bytes) -> Example:
    """A serialized ``tf.train.Example`` as ``{feature name: its values}``."""
    out: Example = {}
    for field, wire, a, b in _fields(data, 0, len(data)):
        if field != 1 or wire != _LEN:
            continue
        for entry_field, entry_wire, c, d in _fields(data, a, b):
            if entry_field != 1 or entry_wire != _LEN:
                continue
            key, value = "", (0, 0)
            for f, w, e, g in _fields(data, c, d):
                if f == 1 and w == _LEN:
                    try:
                        key = data[e:g].decode("utf-8")
                    except UnicodeDecodeError as exc:
                        raise ExampleError("feature name is not UTF-8") from exc
                elif f == 2 and w == _LEN:
                    value = (e, g)
            out[key] = _feature(data, *value)  # a repeated map key: the last entry wins, as in protobuf
    return out
