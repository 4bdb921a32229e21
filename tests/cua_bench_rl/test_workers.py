"""Env workers on real sim env servers: parallel start, a failed start, replacement after kill -9,
and computers whose servers need CURVE (what the pool-placement backend hands in)."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from cua_bench.backends.base import Backend, BackendError, Computer
from cua_bench.backends.sim import SimBackend
from cua_bench.server import EnvServer
from cua_bench.sim import SimDesktop, SimSession
from cua_bench_rl.workers import EnvWorkers, client_for, security_for
from cua_core.actions import Click, Point
from cua_core.errors import PluginError
from cua_core.security import AllowList, ServerSecurity, load_or_create_keypair


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"


class CountingSim(SimBackend):
    """A sim backend that counts provisions in flight at once, to show the computers start together."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = self.most = 0

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        with self.lock:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
        try:
            time.sleep(0.3)
            return super().provision(width=width, height=height, timeout=timeout)
        finally:
            with self.lock:
                self.in_flight -= 1


class FailsThird(SimBackend):
    """The third computer cannot start: the others must be torn down."""

    def __init__(self) -> None:
        self.calls = 0
        self.made: list[Computer] = []
        self.lock = threading.Lock()

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        with self.lock:
            self.calls += 1
            mine = self.calls
        if mine == 3:
            raise BackendError("no room for a third desktop (test)")
        computer = super().provision(width=width, height=height, timeout=timeout)
        self.made.append(computer)
        return computer


def test_start_provisions_in_parallel_and_close_tears_all_down() -> None:
    backend = CountingSim()
    with EnvWorkers(backend, 3, width=320, height=200) as workers:
        assert backend.most == 3  # all three provisioned at once
        addresses = [w.address for w in workers]
        assert len(set(addresses)) == 3 and all(a.startswith("ipc://") for a in addresses)
        assert [w.index for w in workers] == [0, 1, 2] and len(workers) == 3
        assert all(workers.healthy(w.computer) for w in workers)
        pids = [w.computer.handle.pid for w in workers]
        assert workers[1].computer.width == 320
    assert not any(_alive(pid) for pid in pids)
    assert not any(Path(a.removeprefix("ipc://")).exists() for a in addresses)


def test_a_computer_that_cannot_start_is_one_clear_error_and_the_others_go() -> None:
    backend = FailsThird()
    with pytest.raises(BackendError, match=r"env worker 2 on backend 'sim' could not start: no room for a third"):
        EnvWorkers(backend, 3, width=320, height=200).start()
    assert len(backend.made) == 2
    assert not any(_alive(c.handle.pid) for c in backend.made)


def test_unknown_backends_and_counts_are_refused_clearly() -> None:
    with pytest.raises(PluginError, match="sim"):
        EnvWorkers("simm", 1)
    with pytest.raises(ValueError, match="count of at least 1"):
        EnvWorkers("sim", 0)
    with pytest.raises(Exception, match="not started"):
        EnvWorkers("sim", 1)[0]


def test_a_worker_killed_with_9_is_replaced(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[tuple[int, str]] = []
    with EnvWorkers("sim", 2, width=320, height=200, on_replaced=lambda i, r: seen.append((i, r))) as workers:
        old = workers[1]
        os.kill(old.computer.handle.pid, signal.SIGKILL)
        old.computer.handle.wait()
        assert not workers.healthy(old.computer, timeout=0.5)
        with caplog.at_level(logging.WARNING, logger="cua_bench_rl.workers"):
            new = workers.replace(1, "its server stopped answering")
        assert workers.replaced == 1 and seen == [(1, "its server stopped answering")]
        assert workers[1] is new and new.generation == 1 and new.address != old.address
        assert workers[0].generation == 0
        assert "env worker 1 (sim) replaced: its server stopped answering" in caplog.text
        with client_for(new.computer) as env:
            env.reset(options={"task": "sim/click-button"})
            env.step([Click(Point(500, 500))])
        assert not Path(old.address.removeprefix("ipc://")).exists()


class CurveSim(Backend):
    """Env servers that demand CURVE (as pool jobs' servers do), here in this process on loopback."""

    name = "curve-sim"

    def __init__(self, allowed: bytes) -> None:
        self.allowed = allowed

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        folder = Path(os.environ["CUA_CONFIG_DIR"]) / "server-keys"
        allow = AllowList(folder / "authorized_keys")
        allow.add(self.allowed, "the rollout side")
        keys = load_or_create_keypair("env-server", folder)
        server = EnvServer(
            SimSession(SimDesktop(width, height)), "tcp://127.0.0.1:0", security=ServerSecurity(keys, allow)
        )
        server.start()
        return Computer(self.name, server.address, width, height, server, {"server_key": keys.public.decode()})

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        computer.handle.rpc.close()


def test_computers_with_a_server_key_are_reached_with_curve() -> None:
    ours = load_or_create_keypair()
    with EnvWorkers(CurveSim(ours.public), 1, width=320, height=200) as workers:
        computer = workers[0].computer
        security = security_for(computer)
        assert security is not None and security.server_public == computer.info["server_key"].encode()
        assert workers.healthy(computer)  # a CURVE ping
        assert CurveSim.health(workers.backend, computer, timeout=5)  # Backend.health pings with CURVE too
        plain = Computer(computer.backend, computer.address, computer.width, computer.height)
        assert not workers.healthy(plain, timeout=0.5) and not CurveSim.health(workers.backend, plain, timeout=0.5)
        with client_for(computer) as env:
            obs, info = env.reset(options={"task": "sim/click-button"})
            assert info["frames"] == "socket" and obs["screenshot"].shape == (200, 320, 3)
    assert security_for(Computer("sim", "ipc:///x", 1, 1)) is None


def test_the_loader_drives_curve_computers_over_tcp() -> None:
    from cua_bench.spec import EpisodeSpec
    from cua_bench_rl.loader import RolloutLoader
    from cua_bench_rl.rollouts import Decision

    ours = load_or_create_keypair()
    with EnvWorkers(CurveSim(ours.public), 2, width=320, height=200) as workers:
        loader = RolloutLoader(workers, [EpisodeSpec("sim/click-button", 1)], group_size=2, max_steps=2)
        with loader:
            for batch in loader.batches():
                assert all(t.observation["screenshot"].shape == (200, 320, 3) for t in batch.turns)
                batch.respond([Decision([Click(Point(500, 500))], [0], [0.0]) for _ in batch.turns], version=7)
                groups = loader.pop_groups()
                if groups:
                    break
    assert [e.status for e in groups[0].episodes] == ["truncated", "truncated"]
    assert {v for e in groups[0].episodes for v in e.versions} == {7}


class RestoringSim(SimBackend):
    """A sim backend whose ``restore`` (a VM's snapshot revert) is counted, and fails on the calls in ``fails``."""

    def __init__(self, fails: tuple[int, ...] = ()) -> None:
        self.fails = fails
        self.restored: list[Computer] = []

    def restore(self, computer: Computer) -> None:
        self.restored.append(computer)
        if len(self.restored) in self.fails:
            raise BackendError("its snapshot would not revert (test)")


def test_prepare_restores_a_computer_that_served_and_replaces_one_that_cannot_be() -> None:
    backend = RestoringSim(fails=(2,))
    with EnvWorkers(backend, 1, width=320, height=200) as workers:
        first = workers.prepare(0)  # fresh from provision: nothing to restore
        assert backend.restored == [] and first.served
        assert workers.prepare(0) is first and backend.restored == [first.computer]
        fresh = workers.prepare(0)  # the second restore fails: a new computer instead
        assert fresh is workers[0] and fresh.generation == 1 and fresh.computer is not first.computer
        assert workers.replaced == 1 and fresh.served and len(backend.restored) == 2
        assert first.computer.handle.poll() is not None  # torn down
        workers.prepare(0)
        assert backend.restored[-1] is fresh.computer
