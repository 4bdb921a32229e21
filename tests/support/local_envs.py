"""Helpers of the local backend's tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from unittest import mock

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


# The programs each desktop app's tasks drive (by the task name's prefix), and their Debian packages.
PROGRAMS = {
    "xterm": ("xterm",),
    "mousepad": ("mousepad",),
    "gnumeric": ("gnumeric", "ssconvert"),
    "pcmanfm": ("pcmanfm",),
    "chromium": ("chromium",),
    "calc": ("soffice", "localc"),
    "writer": ("soffice", "lowriter"),
    "impress": ("soffice", "loimpress"),
    "gedit": ("gedit",),
    "galculator": ("galculator",),
    "fileroller": ("file-roller", "zip", "unzip"),
    "evince": ("evince",),
    "inkscape": ("inkscape",),
    "gimp": ("gimp",),
    "thunderbird": ("thunderbird",),
    "vlc": ("vlc", "ffmpeg"),
    "qgis": ("qgis",),
    "blender": ("blender",),
    "kate": ("kate",),
    "draw": ("soffice", "lodraw"),
    # Tasks that carry data between two of the apps above.
    "multi": (
        "soffice",
        "localc",
        "lowriter",
        "loimpress",
        "pcmanfm",
        "mousepad",
        "gedit",
        "galculator",
        "file-roller",
        "evince",
        "inkscape",
        "gimp",
        "thunderbird",
    ),
}
# The Debian package of each program, where it is not the program's name.
PACKAGES = {
    "ssconvert": "gnumeric",
    "soffice": "libreoffice-gtk3",
    "localc": "libreoffice-calc",
    "lowriter": "libreoffice-writer",
    "loimpress": "libreoffice-impress",
    "lodraw": "libreoffice-draw",
}


def desktop_task_problem(task: str) -> str | None:
    """Why the desktop task ``task`` cannot run on this host, or None."""
    from cua_bench.backends.local import unavailable

    backend = unavailable()
    if backend:
        return f"local backend unavailable: {backend}"
    missing = [name for name in PROGRAMS[task.split("-", 1)[0]] if shutil.which(name) is None]
    packages = sorted({PACKAGES.get(name, name) for name in missing})
    return f"{', '.join(missing)} not installed (apt-get install {' '.join(packages)})" if missing else None


def check_desktop_task(
    folder: Path, root: Path, split: str, variants: int, *, adversary: bool = True, wrong_ways: bool = True
) -> None:
    """``check_task`` on the local backend (oracle 1, nothing 0, with ``wrong_ways`` every wrong way 0, and
    with ``adversary`` every mutation of the oracle's end state 0), then nothing left of the environments
    under ``root``; a task that cannot run skips, or fails when CI is set."""
    import pytest

    from cua_bench.checks import check_task

    reason = desktop_task_problem(folder.name)
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {folder.name} cannot run here: {reason}")
        pytest.skip(reason)
    # Blender draws with OpenGL: its tasks need the X server's GLX, which the local backend leaves off by default.
    needs = {"CUA_LOCAL_GLX": "1"} if folder.name.startswith("blender-") else {}
    # VLC refuses to run as root ("not supposed to be run as root"): its tasks run isolated, as the environment's
    # own user (the suite's conftest shares the host, as root here).
    if folder.name.startswith("vlc-") and os.geteuid() == 0:
        needs["CUA_LOCAL_ISOLATE"] = "1"
    with mock.patch.dict(os.environ, needs):
        problems = check_task(
            folder, backend="local", split=split, variants=variants, adversary=adversary, wrong_ways=wrong_ways
        )
    assert problems == [], problems
    assert not [p for p in root.iterdir() if p.name.startswith("env-")], "an environment's folder was left behind"
    assert marked(root) == [], "an environment's processes outlived it"
