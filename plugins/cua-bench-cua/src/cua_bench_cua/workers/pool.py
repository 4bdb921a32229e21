"""Where Cua's workers run: env servers started on a backend (``create_workers``), their addresses
checked, and the pool that keeps them (``WorkerPool``)."""

from __future__ import annotations

import asyncio
import logging
import re
import subprocess
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

from cua_bench import Backend, Computer
from cua_bench_rl import EnvWorkers

log = logging.getLogger(__name__)


_OUR_SCHEMES = ("ipc://", "tcp://", "inproc://")


def _check_address(url: str) -> str:
    if not isinstance(url, str) or not url.startswith(_OUR_SCHEMES):
        hint = ""
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            hint = (
                " Cua's HTTP worker servers are not spoken here: our workers are env servers, and "
                "create_workers (or WorkerPool) starts them and gives their addresses as WorkerHandle.api_url."
            )
        raise ValueError(f"{url!r} is not an env server address (ipc://, tcp:// or inproc://).{hint}")
    return url


# Pools create_workers started: an address of theirs is known, with what connecting needs (a server
# beyond this host carries its CURVE key in computer.info["server_key"]).
_POOLS: weakref.WeakSet[EnvWorkers] = weakref.WeakSet()


def _known(address: str, width: int, height: int) -> Computer:
    """The computer at ``address`` if a live pool of ``create_workers`` holds it, else a bare one."""
    for pool in list(_POOLS):
        for worker in pool:
            if worker.address == address:
                return worker.computer
    return Computer("given", address, width, height)


# -- workers -------------------------------------------------------------------------------------


@dataclass(eq=False)
class WorkerHandle:
    """Cua's handle of one running worker: ``worker_id`` (``w0``, ``w1``, ...), ``port`` (0 for an
    ``ipc://`` address), ``process`` (the env server's ``Popen`` where the backend runs it on this
    host, else None) and ``api_url`` (the env server's address, for ``CBEnvWorkerClient``)."""

    pool: EnvWorkers = field(repr=False)
    index: int

    @property
    def worker_id(self) -> str:
        return f"w{self.index}"

    @property
    def api_url(self) -> str:
        return self.pool[self.index].address  # follows a replacement

    @property
    def port(self) -> int:
        found = re.search(r":(\d+)$", self.api_url)
        return int(found.group(1)) if found else 0

    @property
    def process(self) -> subprocess.Popen[str] | None:
        if not self.pool._workers:  # cleaned up
            return None
        handle = self.pool[self.index].computer.handle
        return handle if isinstance(handle, subprocess.Popen) else None

    async def health_check(self, timeout: float = 5.0) -> bool:
        """The env server answers a ping within ``timeout`` seconds."""
        computer = self.pool[self.index].computer
        return await asyncio.to_thread(self.pool.healthy, computer, timeout=timeout)

    def stop(self) -> None:
        """Tear this worker's computer down (``cleanup_workers`` closes the whole pool)."""
        computer = self.pool[self.index].computer
        try:
            self.pool.backend.teardown(computer)
        except Exception as exc:
            log.warning("stopping env worker %s at %s failed: %s", self.worker_id, computer.address, exc)

    @property
    def is_running(self) -> bool:
        if not self.pool._workers:  # cleaned up
            return False
        process = self.process
        if process is not None:
            return process.poll() is None
        return self.pool.healthy(self.pool[self.index].computer, timeout=2.0)


async def create_workers(
    n_workers: int,
    allowed_ips: Sequence[str] | None = None,
    startup_timeout: float = 30.0,
    host: str = "0.0.0.0",
    *,
    backend: str | Backend = "sim",
    width: int = 1280,
    height: int = 800,
) -> list[WorkerHandle]:
    """Start ``n_workers`` env servers of ``backend`` (one env each) in parallel; their handles.

    Cua's ``allowed_ips`` and ``host`` are accepted and not applied: access to an env server is the
    backend's (a private ``ipc://`` socket, or CURVE keys beyond this host). A worker that fails to
    start tears the others down and raises (``BackendError``, a ``RuntimeError`` in Cua)."""
    if allowed_ips:
        log.info("create_workers: allowed_ips %s not applied (env server access is the backend's)", list(allowed_ips))
    pool = EnvWorkers(backend, n_workers, width=width, height=height, start_timeout=startup_timeout)
    await asyncio.to_thread(pool.start)
    _POOLS.add(pool)
    return [WorkerHandle(pool, i) for i in range(n_workers)]


async def cleanup_workers(workers: Sequence[WorkerHandle]) -> None:
    """Stop every worker: each pool the handles belong to is closed (all its env servers)."""
    pools: list[EnvWorkers] = []
    for handle in workers:
        if all(handle.pool is not p for p in pools):
            pools.append(handle.pool)
    for pool in pools:
        await asyncio.to_thread(pool.close)


async def wait_for_workers(workers: Sequence[WorkerHandle], timeout: float | None = None) -> None:
    """Wait until every worker's env server has stopped (``asyncio.TimeoutError`` past ``timeout``)."""

    async def gone(handle: WorkerHandle) -> None:
        while handle.is_running:
            await asyncio.sleep(0.1)

    await asyncio.wait_for(asyncio.gather(*(gone(h) for h in workers)), timeout)


class WorkerPool:
    """Cua's pool of workers as an (async) context manager: ``workers`` and ``urls`` inside it."""

    def __init__(
        self,
        n_workers: int,
        allowed_ips: Sequence[str] | None = None,
        startup_timeout: float = 30.0,
        host: str = "0.0.0.0",
        *,
        backend: str | Backend = "sim",
        width: int = 1280,
        height: int = 800,
    ) -> None:
        self.n_workers, self.allowed_ips = n_workers, list(allowed_ips or [])
        self.startup_timeout, self.host = startup_timeout, host
        self.backend, self.width, self.height = backend, width, height
        self._workers: list[WorkerHandle] = []

    async def __aenter__(self) -> WorkerPool:
        self._workers = await create_workers(
            self.n_workers, self.allowed_ips, self.startup_timeout, self.host,
            backend=self.backend, width=self.width, height=self.height,
        )  # fmt: skip
        return self

    async def __aexit__(self, *exc: object) -> None:
        await cleanup_workers(self._workers)

    @property
    def workers(self) -> list[WorkerHandle]:
        return self._workers

    @property
    def urls(self) -> list[str]:
        return [w.api_url for w in self._workers]

    async def health_check_all(self) -> dict[str, bool]:
        return {w.worker_id: await w.health_check() for w in self._workers}


# -- actions and prompts -------------------------------------------------------------------------
