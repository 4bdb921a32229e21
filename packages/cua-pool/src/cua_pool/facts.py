"""What a host tells the controller about itself: os, arch, cpus, memory, accelerators, load."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from typing import Any

__all__ = ["check_supported", "host_facts", "load"]


def check_supported() -> None:
    """Spaces need POSIX sessions, signals and rlimits: Linux and macOS have them, Windows does not."""
    if sys.platform == "win32" or platform.system() == "Windows":
        raise RuntimeError(
            "cua-pool cannot run spaces on a Windows host (spaces need POSIX process sessions, signals "
            "and resource limits); run the host agent on Linux or macOS, or inside WSL2"
        )


def _memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def nvidia_gpus() -> list[dict[str, Any]]:
    """GPUs nvidia-smi lists; none when it is absent or fails (a host without a driver)."""
    override = os.environ.get("CUA_POOL_GPUS")
    if override is not None:
        # Declared by hand (a driver tool elsewhere, or a test): "0,1" means indices 0 and 1.
        return [{"kind": "nvidia", "index": int(i), "name": "declared"} for i in override.split(",") if i.strip()]
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    try:
        out = subprocess.run(
            [exe, "--query-gpu=index,name,memory.total", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    gpus = []
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 3 and parts[0].isdigit():
            mem = int(parts[2]) << 20 if parts[2].isdigit() else 0
            gpus.append({"kind": "nvidia", "index": int(parts[0]), "name": parts[1], "memory": mem})
    return gpus


def apple_silicon() -> list[dict[str, Any]]:
    if platform.system() == "Darwin" and platform.machine() == "arm64":
        return [{"kind": "apple", "name": platform.processor() or "Apple silicon"}]
    return []


def load() -> float:
    """The 1-minute load average per CPU (1.0: every CPU busy)."""
    try:
        return round(os.getloadavg()[0] / (os.cpu_count() or 1), 3)
    except OSError:
        return 0.0


def host_facts() -> dict[str, Any]:
    gpus = nvidia_gpus()
    accelerators = gpus + apple_silicon()
    return {
        "os_name": platform.system(),
        "arch": platform.machine(),
        "cpus": os.cpu_count() or 1,
        "memory": _memory(),
        "accelerators": accelerators,
        "gpus": [g["index"] for g in gpus],
        "load": load(),
    }
