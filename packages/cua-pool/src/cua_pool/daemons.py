"""Background processes of the local pool: the controller and the host agent.

Each holds an exclusive lock on its pid file while it lives, so "is it running" is a lock test
(never a stale pid), and a second copy refuses to start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["hold_pidfile", "running_pid", "spawn", "spawn_and_wait", "starting", "stop_pid"]


def running_pid(pidfile: Path) -> int | None:
    """The pid holding ``pidfile``'s lock, or None when nobody does."""
    try:
        fd = os.open(pidfile, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, 32, 0).decode().strip()
            return int(text) if text.isdigit() else None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def hold_pidfile(pidfile: Path, what: str) -> IO[Any]:
    """Lock ``pidfile`` for this process's lifetime (keep the returned file open)."""
    handle = pidfile.open("a+")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        other = handle.read().strip()
        handle.close()
        raise RuntimeError(f"{what} is already running (pid {other}); stop it first") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


@contextlib.contextmanager
def starting(lockfile: Path) -> Iterator[None]:
    """Serialise starters: two commands at once must not both spawn a daemon (the loser could
    take the pid lock later, after the winner stopped, and linger)."""
    with lockfile.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def spawn_and_wait(args: list[str], log: Path, pidfile: Path, timeout: float) -> int:
    """Spawn a daemon and wait until it holds its pid lock; the caller holds :func:`starting`."""
    pid = spawn(args, log)
    deadline = time.monotonic() + timeout
    while (held := running_pid(pidfile)) is None:
        if not _alive(pid):
            why = "exited before it took its lock"
        elif time.monotonic() > deadline:
            why = f"had not taken its lock after {timeout:g} s"
        else:
            time.sleep(0.02)
            continue
        raise RuntimeError(f"`cua {' '.join(args)}` did not start: it {why}; {_tail(log)}see {log}")
    return held


def _tail(log: Path, lines: int = 5) -> str:
    """The log's last lines, so a failed start says why without a second command."""
    try:
        text = log.read_text(errors="replace").strip().splitlines()[-lines:]
    except OSError:
        return ""
    return "its log ends:\n  " + "\n  ".join(text) + "\n" if text else ""


def spawn(args: list[str], log: Path, env: dict[str, str] | None = None) -> int:
    """Start ``python -m cua_pool.cli ARGS`` detached from this terminal and session."""
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cua_pool.cli", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            env=env,
        )
    return proc.pid


def stop_pid(pid: int, timeout: float = 10.0) -> bool:
    """SIGTERM, then SIGKILL after ``timeout``; True once the process is gone."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.1)
    return not _alive(pid)


def _alive(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
