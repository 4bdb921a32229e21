"""What feeds the TUI: the bus (every event, batched) and the pool controller (snapshots and detail).

Both run in thread workers and hand results to the app as Textual messages, so neither a burst of
events nor a controller that is restarting ever blocks the UI. The bus socket reconnects by itself
(ZeroMQ); the controller link makes a new client after each failure and backfills again.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from cua_core import CuaError, Event, RpcClient, Subscriber
from cua_pool import controller_target
from cua_pool.config import client_security, resolve

__all__ = ["BusBatch", "ControllerLink", "ControllerSnapshot", "read_bus"]

BATCH_S = 0.05  # at most this long between an event's arrival and the batch that carries it
BATCH_MAX = 2000  # events per batch, so one message never grows without bound under a flood


class BusBatch(Message):
    """Events from the bus, in arrival order."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = events


@dataclass
class ControllerSnapshot:
    connected: bool
    address: str
    hosts: list[dict[str, Any]] = field(default_factory=list)
    jobs: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""


class ControllerUpdate(Message):
    def __init__(self, snapshot: ControllerSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot


def read_bus(address: str, post: Callable[[list[Event]], object], stop: threading.Event) -> None:
    """Subscribe to everything on ``address`` and post events in batches until ``stop`` is set."""
    with Subscriber(address, ("",)) as sub:
        while not stop.is_set():
            first = sub.recv(0.2)
            if first is None:
                continue
            batch = [first]
            deadline = time.monotonic() + BATCH_S
            while len(batch) < BATCH_MAX:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                event = sub.recv(left)
                if event is None:
                    break
                batch.append(event)
            post(batch)


def _listening(path: str) -> bool:
    """An ipc socket someone accepts on; a stale file left by a killed controller is not (ZeroMQ would
    wait out the whole call timeout on it, in silence)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            return False
        except OSError:
            return True  # a path too long to probe, or no permission: let ZeroMQ say
    return True


class ControllerLink:
    """The pool controller, reached the way ``cua`` reaches it; never starts one (the TUI only watches)."""

    POLL_S = 2.0

    def __init__(self, controller: str | None = None) -> None:
        target, key = controller_target(controller)
        self.address = resolve(target)
        self.key = key
        self.wake = threading.Event()  # set by pool events: poll now, not at the next tick

    def client(self, timeout: float = 5.0) -> RpcClient:
        return RpcClient(
            self.address,
            timeout=timeout,
            heartbeat_timeout=timeout,
            retries=0,
            security=client_security(self.address, self.key),
        )

    def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 5.0) -> Any:
        """One RPC on a client of its own (callers are workers on several threads)."""
        with self.client(timeout) as client:
            return client.call(method, params or {}, timeout=timeout)

    def snapshot(self) -> ControllerSnapshot:
        if self.address.startswith("ipc://") and not _listening(self.address.removeprefix("ipc://")):
            return ControllerSnapshot(
                False, self.address, error="no pool controller runs here; `cua host setup` starts one"
            )
        try:
            with self.client(timeout=3.0) as client:
                hosts = client.call("pool.computers", {}, timeout=3.0)
                jobs = client.call("job.list", {"limit": 200}, timeout=3.0)
        except (CuaError, ValueError, OSError) as exc:
            return ControllerSnapshot(False, self.address, error=f"{type(exc).__name__}: {exc}")
        return ControllerSnapshot(True, self.address, list(hosts), list(jobs))

    def watch(self, post: Callable[[ControllerSnapshot], object], stop: threading.Event) -> None:
        """Post a snapshot now, then every POLL_S (sooner when woken) until ``stop``."""
        while not stop.is_set():
            post(self.snapshot())
            self.wake.wait(self.POLL_S)
            self.wake.clear()
