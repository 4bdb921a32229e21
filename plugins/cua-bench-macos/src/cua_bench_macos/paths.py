"""File calls confined to the user's home and /tmp, with the local desktop's rules in macOS's terms.

As on the local desktop (``backends/local/home.py``), a task names a file relative to home (``~``
too), or absolutely inside home or /tmp, and anything that resolves elsewhere (``..``, a symbolic
link out) is refused. Home is the guest user's (``/Users/lume`` on Lume's images, ``/Users/admin``
on tart's); tasks written for a Linux machine name ``/home/user/...``, which maps to it. On macOS
``/tmp`` is a link to ``/private/tmp``: both names are accepted, and the check compares resolved paths.
"""

from __future__ import annotations

import os
import posixpath

from cua_core import SecurityError

__all__ = ["USER_HOME", "guest_path"]

USER_HOME = "/home/user"  # the home tasks written for a Linux machine name (as on the local desktop)


def _within(path: str, folder: str) -> bool:
    folder = folder.rstrip("/")
    return path == folder or path.startswith(folder + "/")


def guest_path(home: str, tmp: str, path: str) -> str:
    """The real path ``path`` names; ``SecurityError`` where it resolves outside home and tmp.

    Args:
        home: the user's home, ``/Users/lume``.
        tmp: the temporary folder tasks name ``/tmp`` (``/tmp`` itself inside a guest).
        path: as a task gives it.
    """
    if not isinstance(path, str) or not path:
        raise ValueError(f"file path {path!r}: give a path relative to the user's home, or under /tmp")
    real_home, real_tmp = os.path.realpath(home), os.path.realpath(tmp)
    if path == "~" or path.startswith("~/"):
        candidate = posixpath.join(real_home, path[2:])
    elif _within(path, USER_HOME):
        candidate = posixpath.join(real_home, path[len(USER_HOME) :].lstrip("/"))
    elif _within(path, "/tmp") and tmp != "/tmp":
        candidate = posixpath.join(real_tmp, path[len("/tmp") :].lstrip("/"))
    elif path.startswith("/"):
        candidate = path
    else:
        candidate = posixpath.join(real_home, path)
    resolved = os.path.realpath(posixpath.normpath(candidate))
    if not (_within(resolved, real_home) or _within(resolved, real_tmp)):
        raise SecurityError(
            f"file path {path!r} resolves to {resolved}, outside the user's home and /tmp; read and write files "
            f"under home (relative paths, ~ or {USER_HOME}: {real_home}) or /tmp ({real_tmp})"
        )
    return resolved
