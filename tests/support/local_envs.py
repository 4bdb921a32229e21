"""Helpers of the local backend's tests."""

from __future__ import annotations

import os
from pathlib import Path

from cua_bench.backends.local.procs import MARKER, alive


def marked(root: Path) -> list[int]:
    """Live processes whose environment names ``root`` or an env under it (apps, servers, helpers)."""
    needle = f"{MARKER}={root}".encode()
    found = []
    for name in os.listdir("/proc"):
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes() if name.isdigit() else b""
        except OSError:
            continue
        if any(entry.startswith(needle) for entry in environ.split(b"\0")) and alive(int(name)):
            found.append(int(name))
    return found
