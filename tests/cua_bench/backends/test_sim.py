"""The sim backend passes the backend conformance suite, and leaves nothing behind."""

from __future__ import annotations

from typing import Any

import pytest

from cua_bench.backends.base import BackendError
from cua_bench.backends.sim import SimBackend
from cua_bench.conformance import check_backend


def test_sim_is_conformant() -> None:
    assert check_backend("sim") == []


def test_sim_at_another_resolution() -> None:
    assert check_backend(SimBackend(), width=800, height=600) == []


def test_teardown_leaves_no_process_or_socket() -> None:
    backend = SimBackend()
    computers = [backend.provision(width=640, height=480) for _ in range(3)]
    for computer in computers:
        assert backend.health(computer)
        backend.teardown(computer)
        assert computer.handle.poll() is not None
        assert not __import__("os").path.exists(computer.address.removeprefix("ipc://"))


def test_a_server_whose_starter_was_killed_closes_itself() -> None:
    """A runner or trainer killed with -9 never tears its computers down; their servers must not
    live on as orphans (three leaked per test session before this)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    starter = subprocess.Popen(
        [sys.executable, "-c", (
            "import time; from cua_bench.backends.sim import SimBackend\n"
            "computer = SimBackend().provision(width=320, height=240)\n"
            "print(computer.handle.pid, computer.address, flush=True)\n"
            "time.sleep(120)\n"
        )],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert starter.stdout is not None
    pid_text, address = starter.stdout.readline().split()
    server = int(pid_text)
    os.kill(starter.pid, signal.SIGKILL)
    starter.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            break
        with open(f"/proc/{server}/stat") as stat:  # an exited child of init is reaped at once
            if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.1)
    else:
        os.kill(server, signal.SIGKILL)
        raise AssertionError(f"the env server (pid {server}) outlived its starter by 10 s")
    assert not os.path.exists(address.removeprefix("ipc://"))


def _threads_cpus(pid: int) -> set[frozenset[int]]:
    """The CPUs each thread of process ``pid`` may run on."""
    import os

    return {frozenset(os.sched_getaffinity(int(tid))) for tid in os.listdir(f"/proc/{pid}/task")}


def test_each_server_keeps_every_thread_on_one_cpu_the_cpus_taken_in_turn(monkeypatch: Any) -> None:
    import os

    allowed = sorted(os.sched_getaffinity(0))
    backend = SimBackend()
    computers = [backend.provision(width=320, height=240) for _ in range(2 * len(allowed))]
    try:
        placed = []
        for computer in computers:
            assert backend.health(computer)  # serving: its RPC and ZeroMQ threads exist by now
            (cpus,) = _threads_cpus(computer.handle.pid)  # one set shared by every thread
            assert len(cpus) == 1
            placed.append(next(iter(cpus)))
        assert sorted(placed) == sorted(allowed * 2), f"CPUs {placed} are not taken in turn over {allowed}"
    finally:
        for computer in computers:
            backend.teardown(computer)
    monkeypatch.setenv("CUA_SIM_PIN", "0")
    computer = backend.provision(width=320, height=240)
    try:
        assert _threads_cpus(computer.handle.pid) == {frozenset(allowed)}
    finally:
        backend.teardown(computer)


def test_a_server_asked_for_a_cpu_it_may_not_use_says_which_it_may(capsys: Any) -> None:
    import os

    import pytest

    from cua_bench.server import main

    allowed = sorted(os.sched_getaffinity(0))
    with pytest.raises(SystemExit) as exit_info:
        main(["--address", "ipc:///nonexistent/never-bound", "--cpu", str(max(allowed) + 1000)])
    assert exit_info.value.code == 2
    assert f"--cpu {max(allowed) + 1000}: this process may run on CPUs {allowed} only" in capsys.readouterr().err


def test_a_server_that_dies_at_start_is_reported_at_once_as_dead_not_slow() -> None:
    class Dying(SimBackend):
        def server_command(self, argv: list[str], address: str) -> list[str]:
            return [argv[0], "-c", "import sys; sys.exit(3)"]

    with pytest.raises(BackendError, match=r"the sim env server exited with code 3 before it was ready") as raised:
        Dying().provision(width=320, height=240, timeout=600)
    assert "did not start within" not in str(raised.value)
