"""Isolated local env servers forked from the fork server: they share its imported modules' memory, report
their exit status, survive the fork server's restart, and go with the process that started them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cua_bench.backends.local import LocalBackend, unavailable
from cua_bench.backends.local.forkserver import Forked
from cua_bench.backends.local.isolate import isolation_unavailable
from cua_bench.client import EnvClient

pytestmark = pytest.mark.xdist_group("host-home")  # isolated environments, as test_isolation's

MISSING = unavailable() or isolation_unavailable()


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch) -> LocalBackend:
    if MISSING is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but local environments cannot be isolated here: {MISSING}")
        pytest.skip(f"local environments cannot be isolated here: {MISSING}")
    monkeypatch.setenv("CUA_LOCAL_ISOLATE", "1")
    return LocalBackend()


def _rollup(pid: int) -> dict[str, int]:
    lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
    return {name.rstrip(":"): int(kib) for name, kib, *_ in (line.split() for line in lines)}


def _ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.1)
    return False


def test_servers_are_forked_from_one_process_and_share_its_modules(isolated: LocalBackend) -> None:
    computers = [isolated.provision(width=640, height=400) for _ in range(2)]
    try:
        pids = [c.info["pid"] for c in computers]
        assert all(isinstance(c.handle, Forked) for c in computers)
        parents = {_ppid(pid) for pid in pids}
        assert len(parents) == 1 and parents != {os.getpid()}  # one fork server, not this process
        for computer in computers:  # each a working, isolated desktop
            with EnvClient(computer.address) as env:
                env.reset(options={"task": "desktop/xterm-create-file", "variant": 0})
                assert env.session("run_command", command="id -u")["stdout"].strip() == str(computer.info["uid"])
        for pid in pids:  # the fork server's imports (cua-bench, ZeroMQ, numpy, Pillow) are shared pages
            assert _rollup(pid)["Shared_Dirty"] > 10 * 1024, _rollup(pid)
    finally:
        for computer in computers:
            isolated.teardown(computer)
    assert [c.handle.returncode for c in computers] == [0, 0]  # their exit status, though not our children


def test_a_killed_fork_server_takes_its_servers_and_the_next_provision_starts_another(isolated: LocalBackend) -> None:
    first = isolated.provision(width=640, height=400)
    try:
        server = _ppid(first.info["pid"])
        os.kill(server, signal.SIGKILL)
        assert first.handle.wait(30) == -signal.SIGKILL  # its status went with the fork server; it is gone
        second = isolated.provision(width=640, height=400)
        try:
            assert _ppid(second.info["pid"]) not in (server, os.getpid())
            with EnvClient(second.address) as env:
                env.reset(options={"task": "desktop/xterm-create-file", "variant": 0})
        finally:
            isolated.teardown(second)
    finally:
        isolated.teardown(first)


DRIVER = """
import json, time
from cua_bench.backends.local import LocalBackend
computer = LocalBackend().provision(width=640, height=400)
print(json.dumps({"server": computer.info["pid"]}), flush=True)
time.sleep(600)
"""


def test_a_driver_killed_with_9_takes_the_fork_server_and_its_desktops(isolated: LocalBackend) -> None:
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER], stdout=subprocess.PIPE, text=True, env={**os.environ, "CUA_LOCAL_ISOLATE": "1"}
    )
    try:
        assert driver.stdout is not None
        server = json.loads(driver.stdout.readline())["server"]
        fork_server = _ppid(server)
        found = subprocess.run(["pgrep", "-P", str(server), "Xvfb"], capture_output=True, text=True, check=False)
        xvfb = [int(p) for p in found.stdout.split()]
        assert xvfb
    finally:
        driver.kill()
        driver.wait()
    assert all(_gone(pid, 30) for pid in (fork_server, server, *xvfb))


def test_the_option_off_starts_each_server_as_a_process_of_its_own(
    isolated: LocalBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUA_LOCAL_FORKSERVER", "0")
    computer = LocalBackend().provision(width=640, height=400)
    try:
        assert not isinstance(computer.handle, Forked) and isinstance(computer.handle, subprocess.Popen)
        assert _ppid(computer.handle.pid) == os.getpid()  # the unshare launcher, our child
    finally:
        LocalBackend().teardown(computer)
