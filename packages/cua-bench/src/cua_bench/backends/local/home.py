"""The environment's home: file access confined to it, and its restoration between episodes.

Tasks address files relative to home on every backend; on a real host an absolute path or a
``..`` could reach the user's own files, so every path is resolved (symlinks included) and refused
unless it stays inside home or the environment's tmp folder. (A symlink swapped in between the
check and the open is not guarded against: apps in the environment are not adversaries of the host.)

``env_path`` also takes the absolute paths tasks written for a whole machine use (Cua Bench's
``/tmp/answer.txt``): ``/tmp`` is the environment's own tmp folder and ``/home/user`` its home.
Only the session's file calls map them: the environment's programs still see the host's ``/tmp``.
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

from cua_core import SecurityError

__all__ = ["USER_HOME", "clear_dir", "env_path", "restore_home"]

USER_HOME = "/home/user"  # the home tasks written for a whole machine name (OSWorld's and Cua Bench's user)


def env_path(home: Path, tmp: Path, path: str, host: tuple[Path, ...] = ()) -> Path:
    """The real path ``path`` names in the environment: relative, ``~`` and ``/home/user`` paths in
    ``home``; ``/tmp`` paths in ``tmp``; the real paths of both as they are.

    Raises ``SecurityError`` for anything that resolves outside the two (``..``, a symlink, ``/etc``),
    or into ``host``: the host's folders bound into a /tmp of the environment's own (``isolate``:
    the env roots' folder, task folders, others' sockets), which are not the environment's tmp.
    """
    if not isinstance(path, str) or not path:
        raise ValueError(f"file path {path!r}: give a path relative to the environment's home, or under /tmp")
    real_home, real_tmp = Path(os.path.realpath(home)), Path(os.path.realpath(tmp))
    if path == "~" or path.startswith("~/"):
        candidate = real_home / (path[2:] or ".")
    elif not os.path.isabs(path):
        candidate = real_home / path
    else:
        normal = Path(os.path.normpath(path))
        if _within(normal, real_home) or _within(normal, real_tmp):
            candidate = normal  # already a real path of the environment (what `pwd` printed, say)
        elif _within(normal, Path(USER_HOME)):
            candidate = real_home / normal.relative_to(USER_HOME)
        elif _within(normal, Path("/tmp")):
            candidate = real_tmp / normal.relative_to("/tmp")
        else:
            candidate = normal
    resolved = Path(os.path.realpath(candidate))
    in_tmp = _within(resolved, real_tmp) and not any(_within(resolved, folder) for folder in host)
    if not (_within(resolved, real_home) or in_tmp):
        raise SecurityError(
            f"file path {path!r} resolves to {resolved}, outside the environment's home and tmp; read and write "
            f"files under home (relative paths, ~ or {USER_HOME}: {real_home}) or tmp (/tmp: {real_tmp})"
        )
    return resolved


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _force(function: Callable[..., Any], path: str, _exc: Any) -> None:
    """rmtree's error handler: an app made a folder read-only; make it writable and retry once."""
    with contextlib.suppress(OSError):
        parent = os.path.dirname(path)
        os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, os.stat(path).st_mode | stat.S_IRWXU)
        function(path)


def clear_dir(folder: Path, keep: tuple[str, ...] = ()) -> None:
    """Empty ``folder`` (keeping the folder itself, so open shells' cwd stays valid) but for names starting
    with one of ``keep`` (the X server's sockets, where the folder is the machine's /tmp)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for entry in os.scandir(folder):
        if keep and entry.name.startswith(keep):
            continue
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
