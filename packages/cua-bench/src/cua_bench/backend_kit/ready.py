"""The ready handshake: how a backend knows the env server it started is serving.

A server started as a child process says so on its first line of output, ``ready ADDRESS`` (then,
with CURVE, `` server_key=KEY``), once it listens: the backend reads that line. A server the
backend cannot read (in a container, a VM) is asked instead, by ping, until it answers, its
computer stops, or time runs out; each end says which.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable

from cua_bench.backend_kit.errors import BackendError

__all__ = ["READY", "read_ready_line", "ready_address", "wait_ready"]

READY = "ready"  # the first word of the server's first line


def read_ready_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The server's first line, or '' if it said nothing within ``timeout`` (or died first).

    Read on a thread: a server that hangs before printing must not hang the backend with it."""
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(proc.stdout.readline() if proc.stdout else ""), daemon=True)
    reader.start()
    reader.join(timeout)
    return got[0].strip() if got else ""


def ready_address(line: str) -> str | None:
    """The address a ready line announces, or None when ``line`` is not one."""
    word, _, rest = line.partition(" ")
    address = rest.split(" ", 1)[0]
    return address if word == READY and address else None


def wait_ready(
    answers: Callable[[], bool],
    stopped: Callable[[], str | None],
    *,
    timeout: float,
    what: str,
    detail: Callable[[], str] | None = None,
    interval: float = 0.05,
) -> None:
    """Until ``answers()`` (the server answered a ping). ``stopped()`` says why the computer is gone, or None
    while it runs; a stop, or ``timeout`` seconds, is a ``BackendError`` about ``what`` (``container
    cua-env-1``) ending with ``detail()`` (its log, say), so the error shows why."""
    deadline = time.monotonic() + timeout
    while True:
        if answers():
            return
        why = stopped()
        if why is not None or time.monotonic() > deadline:
            problem = (
                f"{what} stopped before its env server was ready ({why})"
                if why is not None
                else f"{what} was not ready within {timeout:g} s"
            )
            raise BackendError(problem + (f"; {detail()}" if detail is not None else ""))
        time.sleep(interval)
