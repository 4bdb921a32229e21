"""The environment's home: file access confined to it, and its restoration between episodes.

Tasks address files relative to home on every backend; on a real host an absolute path or a
``..`` could reach the user's own files, so every path is resolved (symlinks included) and refused
unless it stays inside home. (A symlink swapped in between the check and the open is not guarded
against: apps in the environment are not adversaries of the host.)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cua_core.errors import SecurityError

__all__ = ["clear_dir", "inside", "restore_home"]


def inside(home: Path, path: str) -> Path:
    """The real path ``path`` names under ``home`` (relative paths start at home, ``~/`` is home).

    Raises ``SecurityError`` for anything that resolves outside home.
    """
    if not isinstance(path, str) or not path:
        raise ValueError(f"file path {path!r}: give a path relative to the environment's home")
    if path == "~" or path.startswith("~/"):
        path = path[2:] or "."
    real_home = Path(os.path.realpath(home))
    candidate = Path(path) if os.path.isabs(path) else real_home / path
    resolved = Path(os.path.realpath(candidate))
    if resolved != real_home and real_home not in resolved.parents:
        raise SecurityError(
            f"file path {path!r} resolves to {resolved}, outside the environment's home {real_home}; "
            "read and write files under home (relative paths start there)"
        )
    return resolved


def _force(function: Callable[..., Any], path: str, _exc: Any) -> None:
    """rmtree's error handler: an app made a folder read-only; make it writable and retry once."""
    with contextlib.suppress(OSError):
        parent = os.path.dirname(path)
        os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, os.stat(path).st_mode | stat.S_IRWXU)
        function(path)


def clear_dir(folder: Path) -> None:
    """Empty ``folder`` (keeping the folder itself, so open shells' cwd stays valid)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            if sys.version_info >= (3, 12):
                shutil.rmtree(entry.path, onexc=_force)
            else:
                shutil.rmtree(entry.path, onerror=_force)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)


def restore_home(home: Path, skeleton: Path) -> None:
    """Home exactly as the skeleton: everything written since is gone, everything removed is back."""
    clear_dir(home)
    shutil.copytree(skeleton, home, symlinks=True, dirs_exist_ok=True)
