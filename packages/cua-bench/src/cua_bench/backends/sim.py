"""The ``sim`` backend: the embedded pure-Python desktop, one env server process per environment."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import ClassVar

from cua_bench.backend_kit.capabilities import Capabilities
from cua_bench.backend_kit.options import Option
from cua_bench.backends.base import Backend, ProcessBackend
from cua_bench.hookspecs import hookimpl
from cua_bench.session import Session
from cua_core import Register


class SimBackend(ProcessBackend):
    """Each environment's server runs on one CPU, all its threads, the CPUs taken in turn.

    A sim desktop renders on one thread (the GIL), so one CPU costs it no parallelism; left to the
    scheduler, its request, event-loop and ZeroMQ threads wake one another across CPUs and its
    renderer's caches go cold (measured, bench/rl.py: a step through the server took ~20% longer).
    ``CUA_SIM_PIN=0`` leaves the placement to the scheduler.
    """

    name = "sim"
    # No OS, shell or browser: a desktop drawn in Python (any resolution, a full accessibility tree).
    capabilities = Capabilities(os="none", apps=frozenset({"editor", "files", "form"}))
    options = (
        Option("pin", bool, True, "run each environment's server on one CPU, the CPUs taken in turn", "CUA_SIM_PIN"),
    )

    _turn: ClassVar[Iterator[int]] = itertools.count()

    def server_command(self, argv: list[str], address: str) -> list[str]:
        if not self.option("pin") or not hasattr(os, "sched_getaffinity"):  # macOS has none
            return argv
        cpus = sorted(os.sched_getaffinity(0))
        return [*argv, "--cpu", str(cpus[next(self._turn) % len(cpus)])]

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        from cua_bench.sim import SimDesktop, SimSession

        return SimSession(SimDesktop(width, height))


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("sim", SimBackend)
