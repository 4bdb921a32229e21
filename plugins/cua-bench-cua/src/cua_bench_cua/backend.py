"""The ``cua`` backend: a Cua computer-server (Cua's containers, VMs, cloud sandboxes, or a desktop
running ``python -m computer_server``) as one of our environments.

Provisioning connects to the server at ``CUA_COMPUTER_SERVER_URL`` (``http://127.0.0.1:8000`` by
default): the env server runs on this host, as for ``sim`` and ``local``, and its session
(``CuaSession``) turns our actions and session calls into the server's commands. One environment
per server at a time: a computer-server has one screen.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from typing import Any, ClassVar

from cua_bench.backends.base import Backend, BackendError, Computer, ProcessBackend
from cua_bench.hookspecs import hookimpl
from cua_bench.session import Session
from cua_bench_cua.client import URL_ENV, CommandError, ServerUnreachable, call_once, server_url
from cua_core.addresses import runtime_dir
from cua_core.plugins import Register

__all__ = ["CuaBackend"]


class CuaBackend(ProcessBackend):
    name = "cua"
    capabilities: ClassVar[dict[str, Any]] = {
        "os": "linux",
        "resolution": "fixed",  # the server's screen, whatever was asked
        "shell": True,
        "a11y": False,
    }

    def __init__(self) -> None:
        self._locks: dict[str, int] = {}  # env server address -> the fd holding its server's lock

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        url = server_url()
        try:
            call_once(url, "version", timeout=min(timeout, 10.0))
        except (ServerUnreachable, CommandError) as exc:
            raise BackendError(str(exc)) from exc
        lock = _lock(url)
        try:
            computer = super().provision(width=width, height=height, timeout=timeout)
        except BaseException:
            os.close(lock)
            raise
        computer.info["url"] = url
        self._locks[computer.address] = lock
        return computer

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        try:
            super().teardown(computer, timeout=timeout)
        finally:
            lock = self._locks.pop(computer.address, None)
            if lock is not None:
                os.close(lock)

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        from cua_bench_cua.session import CuaSession

        return CuaSession.connect(server_url())


def _lock(url: str) -> int:
    """Hold ``url``'s computer for one environment (across processes): two on one screen would act on
    each other's windows and score each other's work."""
    path = runtime_dir() / f"cua-server-{hashlib.sha256(url.encode()).hexdigest()[:16]}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise BackendError(
            f"the computer-server at {url} already serves an environment (it has one screen): run one at a "
            f"time (--max-parallel 1; for RL, EnvWorkers('cua', 1)), or start a server per environment and run each "
            f"with its {URL_ENV}"
        ) from None
    return fd


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("cua", CuaBackend)
