"""Machines placed on the pool (cua-bench-rl's PoolBackend with ``libvirt`` inside): a pool job starts the machine
on its host, the machine's server is reached at the host's pool address and answers this client's key only, an
episode scores there, and cancelling the job takes the machine down. A real controller and host agent in this
process, a real machine on qemu:///system."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

from cua_bench import BackendError, EnvClient, client_for
from cua_bench.backend_kit import RUN_LABEL
from cua_bench_libvirt import Hypervisor
from cua_bench_rl.placement import PoolBackend
from cua_core import RpcError
from cua_core.addresses import ipc_address
from cua_pool.agent import HostAgent
from cua_pool.controller import Controller

pytestmark = [pytest.mark.xdist_group("libvirt"), pytest.mark.timeout(1200), pytest.mark.usefixtures("session_keys")]


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[str]:
    controller = Controller(ipc_address("libvirt-pool"), home=tmp_path / "controller").start()
    agent = HostAgent(controller.address, host_id="vm-host", name="vm-host", home=tmp_path / "host", max_spaces=1)
    agent.start()
    try:
        assert agent.wait_registered(10)
        yield controller.address
    finally:
        agent.close()
        for meta in (tmp_path / "host").glob("spaces/*/member.json"):  # members outlive agents: none may here
            with contextlib.suppress(OSError, ValueError, KeyError, ProcessLookupError):
                os.killpg(int(json.loads(meta.read_text())["handle"]["pid"]), signal.SIGKILL)
        controller.close()


def pool_machines(uri: str) -> list[str]:
    return [name for name, found, _ in Hypervisor(uri).ours() if found.get(RUN_LABEL, "").startswith("pool-")]


def test_a_pool_job_places_a_machine_that_only_this_client_drives(
    system_libvirt: str, image_root: Path, pool: str
) -> None:
    options = {"uri": system_libvirt, "images": str(image_root), "memory": 1024, "cpus": 1, "accel": "tcg"}
    backend = PoolBackend("libvirt", controller=pool, options=options)
    computer = backend.provision(width=800, height=600, timeout=900)
    try:
        assert computer.info["machine"] is True and computer.info["host_name"] == "vm-host"
        assert computer.address.startswith("tcp://127.0.0.1:")  # the host's pool address (loopback here)
        assert len(pool_machines(system_libvirt)) == 1
        with client_for(computer, step_timeout=120) as env:
            env.reset(options={"task": "desktop/xterm-create-file", "observes": "none"})
            assert env.evaluate() == 0.0
            assert env.solve()["reward"] == 1.0
        with pytest.raises(RpcError), EnvClient(computer.address, step_timeout=5, heartbeat_timeout=5) as plain:
            plain.reset(options={"task": "sim/click-button"})  # no key, no answer
        with pytest.raises(BackendError, match="cannot be reverted from this computer: a fresh machine replaces it"):
            backend.restore(computer)
    finally:
        backend.teardown(computer, timeout=120)
    assert pool_machines(system_libvirt) == []


def test_options_go_only_to_a_backend_that_runs_machines(pool: str) -> None:
    with pytest.raises(BackendError, match="options go to a machine backend's hosts; 'sim' takes them on the host"):
        PoolBackend("sim", controller=pool, options={"memory": 1}).provision(timeout=30)
