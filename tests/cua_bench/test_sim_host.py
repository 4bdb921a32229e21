"""The sim host: many env servers in one process, opened and closed over its control RPC, gone with its parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
from support.signals import ctrl_c
from support.wakeups import wakeups

from cua_bench.client import EnvClient
from cua_core import RpcClient, ipc_address


def _start(*extra: str) -> tuple[subprocess.Popen[str], str]:
    address = ipc_address(f"simhost-{uuid.uuid4().hex[:12]}")
    proc = subprocess.Popen(
        ctrl_c("cua_bench.sim_host", "--address", address, *extra),  # SIGINT as in a terminal, however started
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True,
    )  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline().split() == ["ready", address]
    return proc, address


@pytest.fixture
def host() -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc, address = _start()
    yield proc, address
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


def _gone(path: str) -> bool:
    return not os.path.exists(path.removeprefix("ipc://"))


def test_open_close_and_envs(host: tuple[subprocess.Popen[str], str]) -> None:
    proc, address = host
    with RpcClient(address, timeout=30) as control:
        first = control.call("open", {"width": 320, "height": 240})
        second = control.call("open", {"width": 640, "height": 480})
        assert sorted(control.call("envs")) == sorted([first, second])
        with EnvClient(second) as env:
            assert env.rpc.call("info")["pid"] == proc.pid
            assert (env.rpc.call("info")["width"], env.rpc.call("info")["height"]) == (640, 480)
        assert control.call("close", {"address": first}) is True
        assert control.call("close", {"address": first}) is False  # closed already
        assert _gone(first)
        assert control.call("envs") == [second]
        assert control.call("shutdown") is True
    assert proc.wait(10) == 0
    assert _gone(second) and _gone(address)


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_a_signal_closes_the_host_and_every_environment(
    host: tuple[subprocess.Popen[str], str], signal_name: str
) -> None:
    proc, address = host
    with RpcClient(address, timeout=30) as control:
        opened = [control.call("open", {"width": 320, "height": 240}) for _ in range(3)]
    time.sleep(0.5)  # deep in its wait
    proc.send_signal(getattr(signal, signal_name))
    assert proc.wait(10) == 0
    assert all(_gone(a) for a in [address, *opened])


def test_a_host_whose_starter_was_killed_exits_closing_its_environments() -> None:
    script = (
        "import subprocess, sys, time\n"
        "from cua_core import RpcClient\n"
        "argv = [sys.executable, '-m', 'cua_bench.sim_host', '--address', sys.argv[1], '--exit-with-parent']\n"
        "host = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)\n"
        "address = host.stdout.readline().split()[1]\n"
        "with RpcClient(address, timeout=30) as control:\n"
        "    envs = [control.call('open', {'width': 320, 'height': 240}) for _ in range(2)]\n"
        "print(host.pid, address, *envs, flush=True)\n"
        "time.sleep(120)\n"
    )
    address = ipc_address(f"simhost-{uuid.uuid4().hex[:12]}")
    starter = subprocess.Popen([sys.executable, "-c", script, address], stdout=subprocess.PIPE, text=True)
    assert starter.stdout is not None
    pid_text, *addresses = starter.stdout.readline().split()
    pid = int(pid_text)
    os.kill(starter.pid, signal.SIGKILL)
    starter.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:  # an orphan is reaped by init at once
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
        except FileNotFoundError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        raise AssertionError(f"the sim host (pid {pid}) outlived its starter by 10 s")
    assert all(_gone(a) for a in addresses)


def test_an_idle_host_of_eight_environments_does_not_wake(host: tuple[subprocess.Popen[str], str]) -> None:
    proc, address = host
    with RpcClient(address, timeout=30) as control:
        for _ in range(8):
            control.call("open", {"width": 320, "height": 240})
    time.sleep(0.5)
    before = wakeups(proc.pid)
    time.sleep(3)
    woke = wakeups(proc.pid) - before
    assert woke <= 2, f"an idle host of 8 environments woke {woke} times in 3 s"
