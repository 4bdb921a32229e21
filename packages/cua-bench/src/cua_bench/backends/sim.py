"""The ``sim`` backend: the embedded pure-Python desktop, one env server process per environment, or
many environments per process (``per_server``) when there are hundreds of them."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from cua_bench.backend_kit.capabilities import Capabilities
from cua_bench.backend_kit.options import Option
from cua_bench.backend_kit.ready import read_ready_line, ready_address
from cua_bench.backends.base import Backend, BackendError, Computer, ProcessBackend, _kill
from cua_bench.hookspecs import hookimpl
from cua_bench.session import Session
from cua_core import Register, RpcClient, RpcError, ipc_address


@dataclass(eq=False)
class _Host:
    """A sim host process (``cua_bench.sim_host``): the environments it serves, and places promised to
    provisions still opening theirs."""

    address: str
    proc: subprocess.Popen[str]
    promised: int = 0
    envs: set[str] = field(default_factory=set)

    @property
    def taken(self) -> int:
        return self.promised + len(self.envs)

    def call(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        with RpcClient(self.address, timeout=timeout, heartbeat_timeout=timeout, retries=0) as client:
            return client.call(method, params)


class SimBackend(ProcessBackend):
    """Each environment's server runs on one CPU, all its threads, the CPUs taken in turn.

    A sim desktop renders on one thread (the GIL), so one CPU costs it no parallelism; left to the
    scheduler, its request, event-loop and ZeroMQ threads wake one another across CPUs and its
    renderer's caches go cold (measured, bench/rl.py: a step through the server took ~20% longer).
    ``CUA_SIM_PIN=0`` leaves the placement to the scheduler.

    With ``per_server`` K > 1 an environment is placed in a sim host process serving up to K of
    them (``cua_bench.sim_host``), each still an env server with its own address; a host is pinned
    like a server, so its K environments share one CPU. A process of its own costs an environment
    ~55-65 MiB, a place in a host ~13 MiB: 1,000 environments fit one 24 GiB computer so.
    """

    name = "sim"
    # No OS, shell or browser: a desktop drawn in Python (any resolution, a full accessibility tree).
    capabilities = Capabilities(os="none", apps=frozenset({"editor", "files", "form"}))
    options = (
        Option("pin", bool, True, "run each environment's server on one CPU, the CPUs taken in turn", "CUA_SIM_PIN"),
        Option(
            "per_server",
            int,
            1,
            "environments one server process serves: 1, a process each; K > 1, up to K in each host process",
            "CUA_SIM_PER_SERVER",
        ),
    )

    _turn: ClassVar[Iterator[int]] = itertools.count()
    # One placement at a time: a host's places are counted, and a new host started, under it. A class's
    # lock (subclasses need not call __init__), so placements of other instances wait too (a start is
    # well under a second, once per K environments).
    _hosts_lock: ClassVar[threading.Lock] = threading.Lock()

    @property
    def _hosts(self) -> dict[str, _Host]:
        """This instance's hosts by control address, those with environments (or promised); under the lock."""
        hosts: dict[str, _Host] = self.__dict__.setdefault("_host_table", {})
        return hosts

    def server_command(self, argv: list[str], address: str) -> list[str]:
        if not self.option("pin") or not hasattr(os, "sched_getaffinity"):  # macOS has none
            return argv
        cpus = sorted(os.sched_getaffinity(0))
        return [*argv, "--cpu", str(cpus[next(self._turn) % len(cpus)])]

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        from cua_bench.sim import SimDesktop, SimSession

        return SimSession(SimDesktop(width, height))

    # -- many environments in one process (per_server > 1) ----------------------------------------

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        """As ``ProcessBackend.provision``; with ``per_server`` K > 1 the environment is opened in a host
        with a free place (a new host when all are full): ``handle`` is the host's process, ``info["pid"]``
        its pid and ``info["host"]`` its control address."""
        per_server = self.option("per_server")
        if per_server < 1:
            raise BackendError(f"sim: per_server must be 1 or more, got {per_server}")
        if per_server == 1:
            return super().provision(width=width, height=height, timeout=timeout)
        host = self._place(per_server, timeout)
        try:
            address = host.call("open", {"width": width, "height": height}, timeout)
        except RpcError as exc:
            self._release(host, None, timeout)
            raise BackendError(
                f"the sim host (pid {host.proc.pid}) did not open an environment: {exc}"
                + (f" ({why})" if (why := _exit_reason(host.proc)) else "")
            ) from exc
        with self._hosts_lock:
            host.promised -= 1
            host.envs.add(address)
        return Computer(self.name, address, width, height, host.proc, {"pid": host.proc.pid, "host": host.address})

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        """As ``ProcessBackend.teardown``; an environment in a host is closed alone, and a host left with
        none exits (kept, it would outlive every computer this backend tore down, and a new one starts in
        well under a second, once per K environments)."""
        host_address = computer.info.get("host")
        if host_address is None:
            super().teardown(computer, timeout=timeout)
            return
        with self._hosts_lock:
            host = self._hosts.get(host_address)
            if host is not None and computer.address not in host.envs:
                host = None  # torn down already: its place was given back then
        problem = None
        if host is not None and host.proc.poll() is None:
            try:
                host.call("close", {"address": computer.address}, min(timeout, 5.0))
            except RpcError as exc:  # it goes when its host does; the host still counts it until then
                problem = f"the sim host (pid {host.proc.pid}) did not close {computer.address}: {exc}"
        path = computer.address.removeprefix("ipc://")
        if computer.address.startswith("ipc://") and os.path.exists(path):  # its host was killed
            os.unlink(path)
        if host is not None and problem is None:
            self._release(host, computer.address, timeout)
        if problem is not None:
            raise BackendError(problem)

    def health(self, computer: Computer, *, timeout: float = 2.0) -> bool:
        if computer.info.get("host") is not None and computer.handle.poll() is not None:
            return False  # its host is gone: no need to wait for a ping to go unanswered
        return super().health(computer, timeout=timeout)

    def failure(self, computer: Computer) -> str | None:
        """For an environment in a host: that the host process died, and how (all its environments died
        with it)."""
        if computer.info.get("host") is None:
            return super().failure(computer)
        why = _exit_reason(computer.handle)
        return None if why is None else f"its sim host process (pid {computer.handle.pid}) {why}"

    def _place(self, per_server: int, timeout: float) -> _Host:
        """A host with a free place, that place promised; a new host when every one is full or dead."""
        with self._hosts_lock:
            for host in self._hosts.values():
                if host.taken < per_server and host.proc.poll() is None:
                    host.promised += 1
                    return host
            # Started under the lock: placements wait for it rather than each start a host of its own.
            host = self._start_host(timeout)
            host.promised = 1
            self._hosts[host.address] = host
            return host

    def _release(self, host: _Host, address: str | None, timeout: float) -> None:
        """Give back the place of environment ``address`` (None: one promised); the host exits when it was
        its last."""
        with self._hosts_lock:
            if address is None:
                host.promised -= 1
            else:
                host.envs.discard(address)
            if host.taken > 0:
                return
            self._hosts.pop(host.address, None)
        if host.proc.poll() is None:
            try:
                host.call("shutdown", {}, min(timeout, 2.0))
                host.proc.wait(timeout)
            except (RpcError, subprocess.TimeoutExpired):
                _kill(host.proc)
        host.proc.wait()
        if host.proc.stdout is not None:
            host.proc.stdout.close()
        with contextlib.suppress(FileNotFoundError):  # left by a host that was killed
            os.unlink(host.address.removeprefix("ipc://"))

    def _start_host(self, timeout: float) -> _Host:
        address = ipc_address(f"simhost-{uuid.uuid4().hex[:12]}")
        argv = [sys.executable, "-m", "cua_bench.sim_host", "--backend", self.name, "--address", address]
        argv.append("--exit-with-parent")  # a runner killed with -9 must not leave its hosts running
        proc = subprocess.Popen(
            self.server_command(argv, address),
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,  # as a server: Ctrl-C reaches the runner, which tears down in order
            env=self.server_env(),
        )
        line = read_ready_line(proc, timeout)
        if ready_address(line) is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(2)
            code = proc.poll()
            _kill(proc)
            what = (
                f"exited with code {code} before it was ready"
                if code is not None
                else f"did not start in {timeout:g} s"
            )
            run = f"python -m cua_bench.sim_host --address {address}"
            raise BackendError(f"the sim host {what} (said {line!r}); run `{run}` to see why")
        return _Host(address, proc)


def _exit_reason(proc: subprocess.Popen[str]) -> str | None:
    code = proc.poll()
    if code is None:
        return None
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        memory = " (by the kernel's OOM killer, or by hand)" if -code == signal.SIGKILL else ""
        return f"was killed by {name}{memory}"
    return f"exited with code {code}"


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("sim", SimBackend)
