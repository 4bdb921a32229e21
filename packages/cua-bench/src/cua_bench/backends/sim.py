"""The ``sim`` backend: the embedded pure-Python desktop, one env server process per environment."""

from __future__ import annotations

from typing import Any, ClassVar

from cua_bench.backends.base import Backend, ProcessBackend
from cua_bench.hookspecs import hookimpl
from cua_bench.session import Session
from cua_core.plugins import Register


class SimBackend(ProcessBackend):
    name = "sim"
    capabilities: ClassVar[dict[str, Any]] = {
        "os": "sim",
        "resolution": "any",
        "apps": ["editor", "files", "form"],
        "shell": False,
        "a11y": True,
    }

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        from cua_bench.sim import SimDesktop, SimSession

        return SimSession(SimDesktop(width, height))


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("sim", SimBackend)
