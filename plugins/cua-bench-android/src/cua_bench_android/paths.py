"""Where a task's paths lie on the device, and the shell's complaints about them as Python's errors.

A task's home is the shared storage every app and the shell can reach (``/sdcard``, where Android keeps
Download, Documents, Pictures...): ``~`` and relative paths start there. Android has no ``/tmp``; a task's
``/tmp/...`` is ``/data/local/tmp/...``, the shell user's own scratch folder. Other absolute paths are the
device's own.
"""

from __future__ import annotations

__all__ = ["HOME", "TMP", "device_path", "file_error"]

HOME = "/sdcard"
TMP = "/data/local/tmp"


def device_path(path: str) -> str:
    """``path`` as a task means it, on the device."""
    if path == "~" or path.startswith("~/"):
        return HOME + path[1:]
    if path == "/tmp" or path.startswith("/tmp/"):
        return TMP + path[4:]
    return path if path.startswith("/") else f"{HOME}/{path}"


def file_error(path: str, said: str) -> OSError:
    """The error a toybox command's complaint about ``path`` (its stderr) stands for."""
    text = said.strip()
    for words, error in (
        ("No such file", FileNotFoundError),
        ("Is a directory", IsADirectoryError),
        ("Not a directory", NotADirectoryError),
        ("Permission denied", PermissionError),
    ):
        if words in text:
            return error(f"{path} on the device: {text}")
    return OSError(f"{path} on the device: {text or 'the command failed and said nothing'}")
