"""The content-addressed image store: one file per distinct image, named by the SHA-256 of its bytes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cua_data.errors import StoreError
from cua_data.layout import TMP_MARK, image_ref, resolve_image

__all__ = ["ImageStore", "sniff_extension"]

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"BM", "bmp"),
)


def sniff_extension(data: bytes) -> str:
    """The file extension of encoded image bytes, from their magic number."""
    for magic, ext in _MAGIC:
        if data.startswith(magic):
            return ext
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    raise StoreError(
        f"image bytes starting {data[:12]!r} are not PNG, JPEG, GIF, BMP or WebP; store encoded images, not raw pixels"
    )


class ImageStore:
    """``<root>/images/<aa>/<sha>.<ext>``: writing the same bytes twice stores them once."""

    def __init__(self, root: Path, dataset: str | None = None) -> None:
        self.root = root
        self.dataset = dataset or root.resolve().name
        self.written = 0
        self.deduplicated = 0

    def put(self, data: bytes, ext: str | None = None) -> str:
        """Store ``data`` (if new) and return the path a row records for it."""
        if not isinstance(data, bytes | bytearray | memoryview) or not len(data):
            raise StoreError(f"an image must be non-empty encoded bytes, got {type(data).__name__}")
        data = bytes(data)
        ext = ext or sniff_extension(data)
        sha = hashlib.sha256(data).hexdigest()
        ref = image_ref(self.dataset, sha, ext)
        path = resolve_image(self.root, ref)
        if path.exists():
            self.deduplicated += 1
            return ref
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write aside, then rename: a crash leaves either no file or the whole file, never half.
        tmp = path.with_name(f"{path.name}{TMP_MARK}{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        self.written += 1
        return ref

    def path(self, ref: str) -> Path:
        return resolve_image(self.root, ref)

    def get(self, ref: str) -> bytes:
        path = resolve_image(self.root, ref)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise StoreError(f"image {ref!r} is missing: expected {path}") from None

    def check(self, ref: str) -> str | None:
        """What is wrong with a stored image (missing, or bytes that do not hash to its name)."""
        path = resolve_image(self.root, ref)
        if not path.is_file():
            return f"image {ref!r} is missing: expected {path}"
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        if path.stem != sha:
            return f"image {ref!r} is corrupt: its bytes hash to {sha[:12]}..., not to its name"
        return None
