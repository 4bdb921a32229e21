"""The sim backend passes the backend conformance suite, and leaves nothing behind."""

from __future__ import annotations

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
