"""The ``cua`` backend: a Cua computer-server (Cua's containers, VMs, cloud sandboxes, or a desktop
running ``python -m computer_server``) as one of our environments.

Provisioning connects to the server at the ``url`` option (``CUA_COMPUTER_SERVER_URL``,
``http://127.0.0.1:8000`` by default): the env server runs on this host, as for ``sim`` and
``local``, and its session (``CuaSession``) turns our actions and session calls into the server's
commands. One environment per server at a time: a computer-server has one screen.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from cua_bench import Backend, BackendError, Computer, ProcessBackend, Session
from cua_bench.backend_kit import APP_ALIASES, Capabilities, Option, hold_computer, hookimpl, provisioning
from cua_bench_cua.client import DEFAULT_URL, URL_ENV, CommandError, ServerUnreachable, call_once, server_url
from cua_bench_cua.session import TYPING_ENV, CuaSession
from cua_core import Register

__all__ = ["CuaBackend"]


class CuaBackend(ProcessBackend):
    name = "cua"
    # A Linux computer-server: its screen's size whatever was asked, no accessibility tree, and root and a
    # browser only if that computer happens to have them (not promised). ``launch`` maps the generic app names.
    capabilities = Capabilities(os="linux", shell=True, apps=frozenset(APP_ALIASES))
    options = (
        Option("url", str, DEFAULT_URL, "the Cua computer-server to drive", URL_ENV),
        Option("typing", Literal["keys", "type_text"], "keys", "how text is typed: keys (one key press per "
               "character) or type_text (the server's own command, whole strings)", TYPING_ENV),
    )  # fmt: skip

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._locks: dict[str, int] = {}  # env server address -> the fd holding its server's lock

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        url = str(self.option("url")).rstrip("/")  # as the env server, which reads it in its environment, sees it
        try:
            call_once(url, "version", timeout=min(timeout, 10.0))
        except (ServerUnreachable, CommandError) as exc:
            raise BackendError(str(exc)) from exc
        with provisioning() as undo:
            lock = _lock(url)
            undo.callback(os.close, lock)
            computer = super().provision(width=width, height=height, timeout=timeout)
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
        return CuaSession.connect(server_url())


def _lock(url: str) -> int:
    """Hold ``url``'s computer for one environment (across processes): two on one screen would act on
    each other's windows and score each other's work."""
    return hold_computer(
        "cua-server",
        url,
        f"the computer-server at {url} already serves an environment (it has one screen): run one at a "
        f"time (--max-parallel 1; for RL, EnvWorkers('cua', 1)), or start a server per environment and run each "
        f"with its {URL_ENV}",
    )


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("cua", CuaBackend)
