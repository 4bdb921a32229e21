"""File calls confined to the user's profile and %TEMP%, with the local desktop's rules in Windows' terms.

As on the local desktop (``backends/local/home.py``), a task names a file relative to home (``~``
too), or absolutely inside home or tmp, and anything that resolves elsewhere (``..``, a junction or
symbolic link, ``C:\\Windows``) is refused. Home is the user's profile (``%USERPROFILE%``) and tmp
is ``%TEMP%``. Tasks written for a Linux machine name ``/home/user/...`` and ``/tmp/...``: those map
to home and tmp here too. Windows compares paths without regard to case, and so does the check;
both separators are accepted. Paths Windows reads relative to something other than home are
refused outright: ``C:file`` (the current folder of drive C), ``\\file`` (the current drive's root)
and UNC paths (another computer).
"""

from __future__ import annotations

import ntpath
from collections.abc import Callable

from cua_core import SecurityError

__all__ = ["USER_HOME", "guest_path"]

USER_HOME = "/home/user"  # the home tasks written for a Linux machine name (as on the local desktop)


def _within(path: str, folder: str) -> bool:
    path, folder = ntpath.normcase(path), ntpath.normcase(folder).rstrip("\\")
    return path == folder or path.startswith(folder + "\\")


def _relative(path: str, folder: str) -> str:
    return path[len(folder) :].lstrip("\\/")


def guest_path(home: str, tmp: str, path: str, realpath: Callable[[str], str]) -> str:
    """The real Windows path ``path`` names; ``SecurityError`` where it resolves outside home and tmp.

    Args:
        home: the user's profile, ``C:\\Users\\cua``.
        tmp: the server's %TEMP%.
        path: as a task gives it.
        realpath: Windows' ``os.path.realpath`` (junctions and links resolved).
    """
    if not isinstance(path, str) or not path:
        raise ValueError(f"file path {path!r}: give a path relative to the user's home, or under %TEMP%")
    real_home, real_tmp = realpath(home), realpath(tmp)
    slashed = path.replace("/", "\\")
    drive, rest = ntpath.splitdrive(slashed)
    if path == "~" or slashed.startswith("~\\"):
        candidate = ntpath.join(real_home, slashed[2:])
    elif _within(slashed, USER_HOME.replace("/", "\\")):
        candidate = ntpath.join(real_home, _relative(slashed, USER_HOME))
    elif _within(slashed, "\\tmp"):
        candidate = ntpath.join(real_tmp, _relative(slashed, "\\tmp"))
    elif drive.startswith("\\\\") or (drive and not rest.startswith("\\")) or (not drive and rest.startswith("\\")):
        raise SecurityError(
            f"file path {path!r} is not a path in the user's home or %TEMP% (a UNC path, or one relative to a "
            f"drive's current folder); use a relative path, ~\\..., or a full path under {real_home} or {real_tmp}"
        )
    elif drive:
        candidate = slashed
    else:
        candidate = ntpath.join(real_home, slashed)
    resolved = realpath(ntpath.normpath(candidate))
    if not (_within(resolved, real_home) or _within(resolved, real_tmp)):
        raise SecurityError(
            f"file path {path!r} resolves to {resolved}, outside the user's home and %TEMP%; read and write files "
            f"under home (relative paths, ~ or {USER_HOME}: {real_home}) or %TEMP% (/tmp: {real_tmp})"
        )
    return resolved
