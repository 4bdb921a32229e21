"""PoolBackend on a real pool of two "computers" (a controller and two host agents in this process,
each agent with its own home): env servers run as pool jobs and are played over tcp + CURVE."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cua_bench.backends.base import BackendError
from cua_bench.registry import backends
from cua_bench_rl.placement import PoolBackend
from cua_bench_rl.workers import EnvWorkers, client_for
from cua_core.actions import Click, Point
from cua_core.addresses import ipc_address
from cua_core.errors import SecurityError
from cua_core.rpc import RpcClient
from cua_core.security import ClientSecurity, load_or_create_keypair
from cua_pool.agent import HostAgent
from cua_pool.controller import Controller

JOB_DONE = ("succeeded", "failed", "cancelled")


class Pool:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.controller = Controller(
            ipc_address("placement-pool"), home=root / "controller", heartbeat_interval=0.3, heartbeat_timeout=3.0
        ).start()
        self.agents = [
            HostAgent(self.controller.address, host_id=name, name=name, home=root / name, max_spaces=2).start()
            for name in ("h1", "h2")
        ]
        for agent in self.agents:
            assert agent.wait_registered(10)

    @property
    def address(self) -> str:
        return self.controller.address

    def member_pids(self) -> list[int]:
        pids = []
        for meta in self.root.glob("h*/spaces/*/member.json"):
            with contextlib.suppress(OSError, ValueError, KeyError):
                pids.append(int(json.loads(meta.read_text())["handle"]["pid"]))
        return [p for p in pids if p > 0]

    def busy_spaces(self) -> dict[str, int]:
        return {h["name"]: h["spaces"] for h in self.controller.computers()}

    def close(self) -> None:
        for agent in self.agents:
            agent.close()
        for pid in self.member_pids():  # the agents leave members running (jobs outlive agents); a test must not
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        self.controller.close()


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    made = Pool(tmp_path_factory.mktemp("pool"))
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def idle(pool: Pool) -> Iterator[Pool]:
    """The pool with nothing running before and after the test (a test that fails leaves no worker)."""
    assert sum(pool.busy_spaces().values()) == 0
    yield pool
    for job in pool.controller.list_jobs():
        if job["state"] not in JOB_DONE:
            pool.controller.cancel(job["id"])
    wait_for("every space free", lambda: sum(pool.busy_spaces().values()) == 0)


def wait_for(what: str, check: Callable[[], Any], timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)
    return value


def alive(pid: int) -> bool:
    """Running, not merely a zombie its parent (the agent, in this process) has yet to reap."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_two_env_workers_on_two_hosts_play_over_curve_and_leave_nothing(idle: Pool) -> None:
    backend = PoolBackend("sim", controller=idle.address)
    with EnvWorkers(backend, 2, width=640, height=400, start_timeout=30) as workers:
        computers = [w.computer for w in workers]
        assert {c.info["host_name"] for c in computers} == {"h1", "h2"}  # the pool spreads them
        assert len({c.info["job"] for c in computers}) == 2
        for computer in computers:
            assert computer.backend == "pool" and computer.address.startswith("tcp://127.0.0.1:")
            assert backend.health(computer) and workers.healthy(computer)
            with client_for(computer) as env:  # the rollout side's own CURVE client
                obs, _ = env.reset(options={"task": "sim/click-button", "variant": 1})
                assert obs["screenshot"].shape == (400, 640, 3)
                _, reward, terminated, _, info = env.step([Click(Point(10, 10))])
                assert info["step"] == 1 and reward == 0.0 and not terminated
                assert env.solve()["reward"] == 1.0
        pids = idle.member_pids()
        assert len(pids) == 2 and all(alive(p) for p in pids)
    for computer in computers:
        assert idle.controller.show(computer.info["job"])["job"]["state"] in JOB_DONE
        assert not backend.health(computer, timeout=0.5)
    wait_for("the env servers' processes to end", lambda: not any(alive(p) for p in pids))
    # The hosts report their spaces freed on their own schedule, after the jobs ended: waited for, not raced.
    wait_for("both hosts' spaces to be free", lambda: idle.busy_spaces() == {"h1": 0, "h2": 0})


def test_a_worker_whose_job_ended_is_replaced_and_says_why(idle: Pool) -> None:
    replaced: list[str] = []
    backend = PoolBackend("sim", controller=idle.address)
    with EnvWorkers(
        backend, 1, width=320, height=200, start_timeout=30, on_replaced=lambda i, why: replaced.append(why)
    ) as workers:
        old = workers[0].computer
        idle.controller.cancel(old.info["job"])  # as if its computer were lost
        wait_for("the job to end", lambda: idle.controller.show(old.info["job"])["job"]["state"] in JOB_DONE)
        assert not workers.healthy(old, timeout=0.5)
        new = workers.replace(0, "its env server stopped answering").computer
        assert new.info["job"] != old.info["job"] and workers.healthy(new)
        assert replaced == [
            f"its env server stopped answering (pool job {old.info['job']} cancelled: cancelled by the user)"
        ]
    assert idle.controller.show(new.info["job"])["job"]["state"] in JOB_DONE


def test_a_client_without_the_key_is_refused_and_the_refusal_logged(idle: Pool) -> None:
    backend = PoolBackend("sim", controller=idle.address)
    computer = backend.provision(width=320, height=200)
    try:
        stranger = load_or_create_keypair("stranger")
        security = ClientSecurity(stranger, str(computer.info["server_key"]).encode())
        with (
            RpcClient(computer.address, timeout=5, heartbeat_timeout=2, retries=0, security=security) as rpc,
            pytest.raises(SecurityError, match="refused our CURVE key"),
        ):
            rpc.call("info")
        job = computer.info["job"]
        logged = wait_for(
            "the refusal in the job's log",
            lambda: (
                "refused a client with CURVE key" in (text := idle.controller.logs.read(job, 0, 0)[0].decode()) and text
            ),
        )
        assert stranger.public.decode() in logged
        with client_for(computer) as env:  # ours still plays
            assert env.reset(options={"task": "sim/click-button"})[0]["width"] == 320
    finally:
        backend.teardown(computer)


def test_a_host_selector_places_every_worker_on_a_chosen_host(idle: Pool) -> None:
    backend = PoolBackend("sim", controller=idle.address, hosts=["h2"])
    computers = [backend.provision(width=320, height=200) for _ in range(2)]
    try:
        assert [c.info["host_name"] for c in computers] == ["h2", "h2"]
        ours = {c.info["job"] for c in computers}
        # Whatever the pool put on h1 meanwhile was held, then cancelled.
        others = [j for j in idle.controller.list_jobs() if j["id"] not in ours]
        wait_for(
            "the misplaced jobs to end",
            lambda: all(idle.controller.show(j["id"])["job"]["state"] in JOB_DONE for j in others),
        )
        assert idle.busy_spaces()["h1"] == 0
        # h2 is full now: the next one cannot be placed there, and says why.
        with pytest.raises(BackendError, match="was not placed in time: waiting for 1 cpu host"):
            backend.provision(width=320, height=200, timeout=2)
        wait_for("h1 free again", lambda: idle.busy_spaces()["h1"] == 0)
    finally:
        for computer in computers:
            backend.teardown(computer)


def test_a_server_that_never_comes_up_is_an_error_with_its_log(idle: Pool) -> None:
    backend = PoolBackend("no-such-backend", controller=idle.address)
    with pytest.raises(BackendError) as exc:
        backend.provision()
    message = str(exc.value)
    assert "ended (failed" in message and "before its no-such-backend env server was ready" in message
    assert "no-such-backend" in message.split("Log tail:", 1)[1]  # the host's own words


def test_errors_name_what_is_wrong(idle: Pool, tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="no pool is running here: no controller socket at"):
        PoolBackend("sim", controller=f"ipc://{tmp_path}/none.sock").provision()
    with pytest.raises(BackendError, match=r"no host gpu-9 in the pool \(its hosts: h1, h2\)"):
        PoolBackend("sim", controller=idle.address, hosts=["gpu-9"]).provision()
    with pytest.raises(BackendError, match="cannot be 'pool'"):
        PoolBackend("pool")
    if "docker" in backends():
        with pytest.raises(BackendError, match="runs its env server inside its own computer"):
            PoolBackend("docker", controller=idle.address).provision()
    with pytest.raises(BackendError, match="needs CURVE keys"):
        PoolBackend("sim", controller="tcp://127.0.0.1:9").provision()
    assert idle.controller.list_jobs() == [] or all(j["state"] in JOB_DONE for j in idle.controller.list_jobs())
