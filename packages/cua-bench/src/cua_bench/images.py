"""Cua Bench's image names, so its task folders import as they are written.

Cua's tasks name the image their computer runs (``"image": image("BENCH_WEB")`` in the computer
block). Here the backend makes the computer (``--backend``, and ``cua-bench image build`` for
docker), so the name is only carried: ``task_computer`` ignores the key. ``image(NAME)`` still
answers as Cua's does, with ``CUA_BENCH_IMAGE_<NAME>`` overriding, and refuses a name Cua does not
define, naming the ones it does.
"""

from __future__ import annotations

import os

__all__ = ["BENCH_OSWORLD", "BENCH_WEB", "CANONICAL", "image"]

# Cua's published names; never pulled here (no registry is reached), only carried in the task's block.
CANONICAL = {
    "linux": "ghcr.io/trycua/linux:24.04",
    "windows": "ghcr.io/trycua/windows:2022",
    "macos": "ghcr.io/trycua/macos:26",
}
BENCH_WEB = "ghcr.io/trycua/bench-web:1.0"
BENCH_OSWORLD = "ghcr.io/trycua/bench-osworld:verified"
_NAMES = {"BENCH_WEB": BENCH_WEB, "BENCH_OSWORLD": BENCH_OSWORLD}


def image(name: str) -> str:
    """The image ``name`` stands for (``BENCH_WEB``, ``BENCH_OSWORLD``), or ``$CUA_BENCH_IMAGE_<NAME>``."""
    if name not in _NAMES:
        raise KeyError(f"image {name!r} is not one of Cua Bench's images: {', '.join(sorted(_NAMES))}")
    return os.environ.get(f"CUA_BENCH_IMAGE_{name}", "").strip() or _NAMES[name]
