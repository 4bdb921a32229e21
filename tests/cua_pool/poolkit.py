"""Helpers for the pool tests (imported by conftest and the tests; tests/cua_pool is put on sys.path)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from cua_pool.agent import HostAgent
from cua_pool.cli import main
from cua_pool.client import stop_local_pool as stop_pool_daemons
from cua_pool.controller import Controller
from cua_pool.daemons import running_pid
from cua_pool.paths import controller_home, host_home, local_controller_address

JOBS = Path(__file__).parent / "jobs"


def wait_for(what: str, check: Callable[[], Any], timeout: float = 20.0, every: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


class LocalPool:
    """The `cua` CLI on this test's own local pool (daemons started by the CLI itself)."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def cli(self, *args: str, ok: bool = True) -> Result:
        result = self.runner.invoke(main, [str(a) for a in args], catch_exceptions=False)
        if ok and result.exit_code != 0:
            raise AssertionError(f"cua {' '.join(args)} exited {result.exit_code}:\n{result.output}")
        return result

    def controller_pid(self) -> int | None:
        return running_pid(controller_home() / "controller.pid")

    def agent_pid(self) -> int | None:
        return running_pid(host_home() / "agent.pid")

    def job_state(self, job: str) -> str:
        import json

        return str(json.loads(self.cli("jobs", "show", job, "--json").output)["job"]["state"])


def stop_local_pool() -> list[int]:
    """Stop the pool's daemons and spaces; returns the pids of any daemon that had slipped past
    its pid file (a test of the daemons' start-up locking)."""
    stop_pool_daemons()
    strays = []
    mine = os.environ.get("CUA_CONFIG_DIR", "")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid() or not mine:
            continue
        with contextlib.suppress(OSError):
            if f"CUA_CONFIG_DIR={mine}".encode() in (proc / "environ").read_bytes().split(b"\0"):
                strays.append(int(proc.name))
                os.kill(int(proc.name), signal.SIGKILL)
    return strays


class Cluster:
    """A controller and host agents in this process, each agent with its own home (a "computer")."""

    def __init__(self, root: Path, heartbeat_interval: float = 0.3, heartbeat_timeout: float = 2.0) -> None:
        self.root = root
        self.controller = Controller(
            local_controller_address(),
            home=root / "controller",
            heartbeat_interval=heartbeat_interval,
            heartbeat_timeout=heartbeat_timeout,
        ).start()
        self.agents: dict[str, HostAgent] = {}

    def add_host(self, name: str, max_spaces: int = 2, **kwargs: Any) -> HostAgent:
        agent = HostAgent(
            self.controller.address, host_id=name, name=name, home=self.root / name, max_spaces=max_spaces, **kwargs
        ).start()
        assert agent.wait_registered(10)
        self.agents[name] = agent
        return agent

    def submit(self, target: str, *args: Any, **options: Any) -> str:
        from cua_pool.cli_jobs import pack_code

        file, fn = target.split("::")
        path = JOBS / file
        return str(self.controller.submit(path.name, fn, pack_code(path), args=list(args), **options)["id"])

    def job(self, job: str) -> dict[str, Any]:
        return self.controller.show(job)

    def wait_state(self, job: str, *states: str, timeout: float = 30.0) -> dict[str, Any]:
        return wait_for(
            f"job {job} to be {'/'.join(states)}",
            lambda: (info := self.job(job)) and info["job"]["state"] in states and info,
            timeout,
        )

    def logs(self, job: str, rank: int = 0) -> str:
        return self.controller.logs.read(job, rank, 0)[0].decode()

    def close(self) -> None:
        for agent in self.agents.values():
            agent.close()
        # The agents leave their members running (jobs outlive agents); a test must not.
        for name in self.agents:
            for pid in _space_pids(self.root / name):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
        self.controller.close()


def _space_pids(home: Path) -> list[int]:
    import json

    pids = []
    for meta in (home / "spaces").glob("*/member.json"):
        with contextlib.suppress(OSError, ValueError, KeyError):
            pid = int(json.loads(meta.read_text())["handle"]["pid"])
            if pid > 0:
                pids.append(pid)
    return pids
