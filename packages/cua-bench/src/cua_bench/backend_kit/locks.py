"""One environment at a time on a computer with one screen (a phone over adb, a Cua computer-server)."""

from __future__ import annotations

import hashlib
import os

from cua_bench.backend_kit.errors import BackendError
from cua_core import runtime_dir

__all__ = ["hold_computer"]


def hold_computer(kind: str, key: str, busy: str) -> int:
    """Hold the computer ``key`` (a device's serial, a server's URL) of ``kind`` for one environment, across
    this host's processes; the descriptor to close when the environment is torn down (a killed holder's
    goes with it).

    Raises:
        BackendError: ``busy``, while another environment holds it.
    """
    import fcntl  # here, not at the top: a Windows guest's env server imports the kit, and has no fcntl

    path = runtime_dir() / f"{kind}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise BackendError(busy) from None
    return fd
