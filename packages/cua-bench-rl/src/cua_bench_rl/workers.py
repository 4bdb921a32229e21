"""Env workers: N provisioned computers (one env server each) that rollouts drive, any backend.

Training runs for hours, so a worker whose env server dies (killed for memory, a crashed desktop)
is replaced in place (``replace``) while the others keep going; the dataloader decides when.
Computers are provisioned in parallel because a desktop backend takes seconds per computer.

A backend may be a registered name (``"sim"``) or a Backend object: the pool-placement helper hands
in one whose env servers run as pool jobs on other machines, at ``tcp://`` addresses with the
server's CURVE public key in ``computer.info["server_key"]``; ``client_for`` connects to those
with this user's key pair (``cua_core.security``). It and ``security_for`` are cua-bench's
(``cua_bench.client``), named here too for the code that imports them from this module.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from cua_bench import Backend, BackendError, Computer, client_for, security_for
from cua_core import CuaError, RpcClient, RpcError

__all__ = ["EnvWorkers", "Worker", "client_for", "security_for"]

log = logging.getLogger(__name__)


@dataclass
class Worker:
    """One environment: its index in the pool, the computer, and how many times it was replaced."""

    index: int
    computer: Computer
    generation: int = 0  # bumped by every replacement, so holders of an old client can tell
    served: bool = False  # this computer served an episode: the next one restores it first (``prepare``)

    @property
    def address(self) -> str:
        return self.computer.address


def _resolve_backend(backend: str | Backend) -> Backend:
    if isinstance(backend, Backend):
        return backend
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a registered name like 'sim' or a Backend object, got {backend!r}")
    from cua_bench.registry import backends

    found: Backend = backends()[backend]()  # an unknown name raises PluginError listing the installed ones
    return found


class EnvWorkers:
    """``count`` computers of ``backend``; ``start()`` provisions them all, ``close()`` tears them down.

    ``on_replaced(index, reason)`` is called after each replacement, ``on_closed(index)`` for each
    worker ``close`` tore down (the trainer publishes both).
    """

    def __init__(
        self,
        backend: str | Backend,
        count: int,
        *,
        width: int = 1280,
        height: int = 800,
        start_timeout: float = 60.0,
        on_replaced: Callable[[int, str], None] | None = None,
        on_closed: Callable[[int], None] | None = None,
    ) -> None:
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"EnvWorkers needs a count of at least 1 computer, got {count!r}")
        self.backend = _resolve_backend(backend)
        self.count = count
        self.width, self.height = width, height
        self.start_timeout = start_timeout
        self.on_replaced = on_replaced
        self.on_closed = on_closed
        self._workers: list[Worker] = []
        self._locks = [threading.Lock() for _ in range(count)]
        self._replaced = 0
        self._count_lock = threading.Lock()
        self._closed = False

    @property
    def name(self) -> str:
        return getattr(self.backend, "name", type(self.backend).__name__)

    @property
    def replaced(self) -> int:
        """Workers replaced since ``start``."""
        return self._replaced

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> EnvWorkers:
        """Provision every computer at once; one that fails tears the others down and raises."""
        if self._workers:
            raise RuntimeError("these env workers are already started")
        started = time.monotonic()
        with ThreadPoolExecutor(min(self.count, 32), thread_name_prefix="env-provision") as pool:
            futures = [pool.submit(self._provision, i) for i in range(self.count)]
            computers: list[Computer] = []
            failures: list[tuple[int, BaseException]] = []
            for index, future in enumerate(futures):
                try:
                    computers.append(future.result())
                except BaseException as exc:  # every cause is reported below
                    failures.append((index, exc))
        if failures:
            for computer in computers:
                self._teardown(computer)
            index, cause = failures[0]
            more = f" ({len(failures)} of {self.count} failed)" if len(failures) > 1 else ""
            raise BackendError(
                f"env worker {index} on backend {self.name!r} could not start{more}: {cause}; the others were torn down"
            ) from cause
        self._workers = [Worker(i, c) for i, c in enumerate(computers)]
        log.info("%d %s env workers up in %.1f s", self.count, self.name, time.monotonic() - started)
        return self

    def _provision(self, index: int) -> Computer:
        computer = self.backend.provision(width=self.width, height=self.height, timeout=self.start_timeout)
        try:
            if not self.healthy(computer):
                raise BackendError(f"its env server at {computer.address} does not answer a ping")
        except BaseException:
            self._teardown(computer)
            raise
        return computer

    def healthy(self, computer: Computer, *, timeout: float = 5.0) -> bool:
        """The env server answers: ``Backend.health``, or a CURVE ping for a server beyond this host."""
        security = security_for(computer)
        if security is None:
            return self.backend.health(computer, timeout=timeout)
        try:
            with RpcClient(
                computer.address, timeout=timeout, heartbeat_timeout=timeout, retries=0, security=security
            ) as rpc:
                return bool(rpc.call("rpc.ping") == "pong")
        except RpcError:
            return False

    def replace(self, index: int, reason: str) -> Worker:
        """Tear worker ``index`` down (it may be gone already) and provision a new one in its place."""
        if not self._workers:
            raise RuntimeError("start() the env workers before replacing one")
        if self._closed:
            raise RuntimeError("these env workers are closed")
        with self._locks[index]:
            old = self._workers[index]
            failure = self.backend.failure(old.computer)
            self._teardown(old.computer)
            why = f"{reason} ({failure})" if failure else reason
            try:
                computer = self._provision(index)
            except BaseException as exc:
                raise BackendError(
                    f"env worker {index} on backend {self.name!r} died ({why}) and could not be replaced: {exc}"
                ) from exc
            worker = Worker(index, computer, old.generation + 1)
            self._workers[index] = worker
        with self._count_lock:
            self._replaced += 1
        log.warning("env worker %d (%s) replaced: %s; now at %s", index, self.name, why, computer.address)
        if self.on_replaced is not None:
            self.on_replaced(index, why)
        return worker

    def prepare(self, index: int) -> Worker:
        """Worker ``index``, ready for a new episode, which the caller starts at once.

        A computer that served an episode already is brought back to how it was provisioned first
        (``Backend.restore``: a VM reverts its snapshot; a process or container does nothing there, the
        env server's reset is enough); one that cannot be is replaced. Either way it then counts as
        serving, so the episode after this one restores it in turn.

        Returns:
            The worker to play on: a new one when the old computer was replaced.

        Raises:
            BackendError: restoring failed and so did the replacement (as ``replace``).
        """
        worker = self[index]
        if worker.served:
            try:
                self.backend.restore(worker.computer)
            except BackendError as exc:
                log.warning("env worker %d (%s) could not be restored: %s", index, self.name, exc)
                worker = self.replace(index, f"restoring it failed: {exc}")
        worker.served = True
        return worker

    def _teardown(self, computer: Computer) -> None:
        try:
            self.backend.teardown(computer)
        except Exception as exc:
            log.warning("teardown of env worker at %s failed: %s", computer.address, exc)

    def close(self) -> None:
        """Tear every computer down (in parallel: a desktop takes a while to stop)."""
        self._closed = True
        workers, self._workers = self._workers, []
        if not workers:
            return
        with ThreadPoolExecutor(min(len(workers), 32), thread_name_prefix="env-teardown") as pool:
            for future in [pool.submit(self._teardown, w.computer) for w in workers]:
                with contextlib.suppress(Exception):
                    future.result()
        if self.on_closed is not None:
            for worker in workers:
                self.on_closed(worker.index)

    # -- access ---------------------------------------------------------------------------------

    def __getitem__(self, index: int) -> Worker:
        if not self._workers:
            raise CuaError("the env workers are not started: call start() (or use them as a context manager)")
        return self._workers[index]

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Worker]:
        return iter(list(self._workers))

    def __enter__(self) -> EnvWorkers:
        if not self._workers:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
