"""The ``cua`` backend: a Cua computer-server (Cua's containers, VMs, cloud sandboxes, or a desktop
running ``python -m computer_server``) as one of our environments.

Provisioning connects to the server at ``CUA_COMPUTER_SERVER_URL`` (``http://127.0.0.1:8000`` by
default): the env server runs on this host, as for ``sim`` and ``local``, and its session
(``CuaSession``) turns our actions and session calls into the server's commands. One environment
per server at a time: a computer-server has one screen.
"""

from __future__ import annotations

from typing import Any, ClassVar

from cua_bench.backends.base import Backend, BackendError, Computer, ProcessBackend
from cua_bench.hookspecs import hookimpl
from cua_bench.session import Session
from cua_bench_cua.client import CommandError, ServerUnreachable, call_once, server_url
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

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        url = server_url()
        try:
            call_once(url, "version", timeout=min(timeout, 10.0))
        except (ServerUnreachable, CommandError) as exc:
            raise BackendError(str(exc)) from exc
        computer = super().provision(width=width, height=height, timeout=timeout)
        computer.info["url"] = url
        return computer

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        from cua_bench_cua.session import CuaSession

        return CuaSession.connect(server_url())


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("cua", CuaBackend)
