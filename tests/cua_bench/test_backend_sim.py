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
