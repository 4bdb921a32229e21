"""The processes of one environment: where they live, how they are started, how all of them are found again.

Every process an environment starts (Xvfb, openbox, apps, commands) carries the marker
``CUA_LOCAL_ENV=<env root>`` in its environment, so that reset and teardown can find the ones that
slipped away (daemons that double-fork, grandchildren of a killed app) by scanning ``/proc``, and
direct children get ``PR_SET_PDEATHSIG`` so that a ``kill -9`` of the env server takes them along.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from cua_bench.backend_kit.owners import alive

__all__ = [
    "MARKER",
    "alive",
    "env_base",
    "env_root",
    "env_roots",
    "kill_marked",
    "kill_uid",
    "marked_pids",
    "pdeathsig",
    "spawn",
    "uid_pids",
    "wait_gone",
]

MARKER = "CUA_LOCAL_ENV"
_PR_SET_PDEATHSIG = 1


def env_base() -> Path:
    """The folder of every environment folder (``$CUA_LOCAL_ROOT`` or one per user under the temp folder)."""
    return Path(os.environ.get("CUA_LOCAL_ROOT") or os.path.join(tempfile.gettempdir(), f"cua-local-{os.getuid()}"))


def env_root(server_pid: int, index: int = 0) -> Path:
    """The folder of an environment of process ``server_pid``: home, tmp, runtime dir, logs.

    Derived from the server's pid so the backend, in another process, can clean it up after a
    server that died without doing so; ``index`` tells apart several sessions of one process
    (an env server has one). ``$CUA_LOCAL_ROOT`` moves all of them (tests use it).
    """
    return env_base() / (f"env-{server_pid}" if index == 0 else f"env-{server_pid}-{index}")


def env_roots(server_pid: int) -> list[Path]:
    """Every environment folder of process ``server_pid`` that exists."""
    base = env_base()
    return [path for path in [base / f"env-{server_pid}", *base.glob(f"env-{server_pid}-*")] if path.exists()]


def pdeathsig(sig: int = signal.SIGKILL) -> Callable[[], None]:
    """A ``preexec_fn``: the child gets ``sig`` when the thread that started it dies.

    If the parent is already gone when the child gets here (a race with ``kill -9``), it exits.
    ``prctl`` is looked up here, in the parent: the child of a threaded process must not dlopen.
    """
    parent = os.getpid()
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    number = int(sig)

    def set_it() -> None:
        prctl(_PR_SET_PDEATHSIG, number, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return set_it


def spawn(
    argv: list[str],
    env: Mapping[str, str],
    *,
    cwd: Path | None = None,
    log: IO[Any] | int | None = subprocess.DEVNULL,
    sig: int = signal.SIGKILL,
    new_group: bool = True,
    pass_fds: Iterable[int] = (),
) -> subprocess.Popen[bytes]:
    """Start ``argv`` with no stdin, stdout away from the server's (its first line is "ready ...")."""
    return subprocess.Popen(
        argv,
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
        preexec_fn=pdeathsig(sig),  # noqa: PLW1509 - prctl must run in the child; we never fork threads' locks
        process_group=0 if new_group else None,
        pass_fds=tuple(pass_fds),
        close_fds=True,
    )


def _environ(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return fh.read()
    except OSError:  # gone, or not ours to read
        return b""


def marked_pids(root: Path | str) -> list[int]:
    """Live processes (zombies excluded: their environ is empty) carrying this environment's marker."""
    needle = f"{MARKER}={root}".encode()
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            pid = int(name)
            if pid != os.getpid() and needle in _environ(pid).split(b"\0"):
                found.append(pid)
    return found


def wait_gone(pids: Iterable[int], timeout: float) -> list[int]:
    """Wait until every pid is gone or ``timeout`` passes; returns those still alive."""
    left = list(pids)
    deadline = time.monotonic() + timeout
    while left:
        for pid in list(left):
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)  # reap our own children, or they stay zombies
            if not alive(pid):
                left.remove(pid)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.005)
    return left


def kill_marked(root: Path | str, *, exclude: Iterable[int] = (), timeout: float = 2.0) -> list[int]:
    """SIGKILL every process of this environment but ``exclude``; returns those that survived ``timeout``.

    Repeated a few times: a process may fork while we scan.
    """
    skip = set(exclude)
    return _kill_found(lambda: [pid for pid in marked_pids(root) if pid not in skip], timeout)


def _kill_found(find: Callable[[], list[int]], timeout: float) -> list[int]:
    """SIGKILL what ``find`` finds, three times over (a process may fork while we scan); the survivors."""
    deadline = time.monotonic() + timeout
    left: list[int] = []
    for _ in range(3):
        pids = find()
        if not pids:
            return []
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        left = wait_gone(pids, max(0.0, deadline - time.monotonic()))
    return left


def _uid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def uid_pids(uid: int) -> list[int]:
    """The processes running as ``uid`` (an isolated environment's own user: all of them are its)."""
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and _uid(int(n)) == uid]


def kill_uid(uid: int, *, timeout: float = 2.0) -> list[int]:
    """SIGKILL every process running as ``uid``; returns those that survived ``timeout``."""
    return _kill_found(lambda: uid_pids(uid), timeout)
