"""RPC clients: a blocking one (one call at a time, lowest latency) and an asyncio one (many in flight).

A call waits for its reply within ``timeout``; while the server works it sends heartbeats for the
request, so a server that dies or hangs is noticed after ``heartbeat_timeout`` rather than at the
end of a long timeout. Only calls marked idempotent are retried: re-running a ``step`` because a
reply was lost would act twice on the desktop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import zmq

from cua_core.codec import Envelope, decode, encode
from cua_core.errors import ProtocolError, RemoteError, RpcTimeout, SecurityError, ServerLost
from cua_core.security import ClientSecurity
from cua_core.wire import recv_frames, send_frames

__all__ = ["AsyncRpcClient", "RpcClient"]

_AUTH_FAILED = getattr(zmq, "EVENT_HANDSHAKE_FAILED_AUTH", 0x4000)


@dataclass(frozen=True, slots=True)
class _Settings:
    address: str
    timeout: float
    heartbeat_timeout: float
    retries: int
    security: ClientSecurity | None

    def __post_init__(self) -> None:
        if self.timeout <= 0 or self.heartbeat_timeout <= 0:
            raise ValueError(
                f"timeout ({self.timeout}) and heartbeat_timeout ({self.heartbeat_timeout}) must be > 0 seconds"
            )
        if self.retries < 0:
            raise ValueError(f"retries must be >= 0, got {self.retries}")


def _result(env: Envelope, method: str) -> Any:
    if env.kind == "rep":
        return env.body
    body = env.body if isinstance(env.body, dict) else {}
    raise RemoteError(
        str(body.get("type", "RemoteError")),
        str(body.get("message", env.body)),
        str(body.get("traceback", "")),
        method,
        tuple(str(note) for note in body.get("notes") or ()),
    )


_MONITORS = itertools.count()


def _socket(ctx: zmq.Context[Any], settings: _Settings) -> tuple[zmq.Socket[Any], zmq.Socket[Any] | None]:
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    sock.sndhwm = sock.rcvhwm = 100_000
    monitor = None
    if settings.security is not None:
        settings.security.apply(sock)
        # The only way a client learns that the server refused its key is the socket monitor. Its inproc
        # address is ours and unique: pyzmq's default names it by the socket's file descriptor, which the next
        # socket reuses before the context has released the old name ("Address already in use", seen when a
        # pool's health checks opened and closed clients quickly).
        monitor = sock.get_monitor_socket(_AUTH_FAILED, addr=f"inproc://cua-rpc-monitor-{next(_MONITORS)}")
    sock.connect(settings.address)
    return sock, monitor


def _poll_items(sock: zmq.Socket[Any], monitor: zmq.Socket[Any] | None) -> list[tuple[Any, int]]:
    items: list[tuple[Any, int]] = [(sock, zmq.POLLIN)]
    if monitor is not None:
        items.append((monitor, zmq.POLLIN))
    return items


def _readable(sock: zmq.Socket[Any]) -> bool:
    return not sock.closed and bool(cast(int, sock.getsockopt(zmq.EVENTS)) & zmq.POLLIN)


def _unsendable(method: str, settings: _Settings) -> ServerLost:
    return ServerLost(
        f"{method!r} on {settings.address}: could not send for {settings.heartbeat_timeout:g} s, there is no "
        "connection: the server is gone, or it refused the handshake (a server with CURVE keys needs security=)"
    )


def _refused(settings: _Settings) -> SecurityError:
    return SecurityError(
        f"{settings.address} refused our CURVE key: ask its owner to run "
        "`cua-bus keys allow <our public key>` (see `cua-bus keys show`)"
    )


class RpcClient:
    """Blocking client. Thread-safe (calls are serialised); use one per thread for parallel calls."""

    def __init__(
        self,
        address: str,
        *,
        timeout: float = 30.0,
        heartbeat_timeout: float = 3.0,
        retries: int = 2,
        security: ClientSecurity | None = None,
    ) -> None:
        self._settings = _Settings(address, timeout, heartbeat_timeout, retries, security)
        self._ctx: zmq.Context[Any] = zmq.Context.instance()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._sock, self._monitor = _socket(self._ctx, self._settings)
        self._poll_items = _poll_items(self._sock, self._monitor)

    @property
    def address(self) -> str:
        return self._settings.address

    def call(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        idempotent: bool = False,
    ) -> Any:
        """Call ``method`` with named ``params`` and return its result.

        Raises RemoteError if the handler raised, RpcTimeout after ``timeout`` seconds,
        ServerLost when heartbeats stop, SecurityError when the server refuses our key.
        Idempotent calls are retried up to ``retries`` times after a timeout or a lost server.
        """
        attempts = 1 + (self._settings.retries if idempotent else 0)
        with self._lock:
            for attempt in range(attempts):
                try:
                    return self._call_once(method, params or {}, timeout or self._settings.timeout)
                except RpcTimeout:
                    # A fresh socket drops requests queued to a dead peer and late replies.
                    self._reset()
                    if attempt + 1 == attempts:
                        raise
        raise AssertionError("unreachable")

    def _call_once(self, method: str, params: Mapping[str, Any], timeout: float) -> Any:
        req_id = next(self._ids)
        self._send(encode("req", params, id=req_id, method=method), method)
        start = time.monotonic()
        deadline = start + timeout
        alive_until = start + self._settings.heartbeat_timeout
        while True:
            now = time.monotonic()
            wait = min(deadline, alive_until) - now
            if wait <= 0:
                if now >= deadline:
                    raise RpcTimeout(f"{method!r} on {self.address}: no reply within {timeout:g} s")
                raise ServerLost(
                    f"{method!r} on {self.address}: no reply or heartbeat for "
                    f"{self._settings.heartbeat_timeout:g} s; the server died, hung or is unreachable"
                )
            # zmq_poll directly: zmq.Poller's wrapper costs a few microseconds a call on this path.
            ready = zmq.zmq_poll(self._poll_items, max(1, int(wait * 1000)))
            if not ready:
                continue
            if ready[-1][0] is self._monitor:
                raise _refused(self._settings)
            env = decode(recv_frames(self._sock))
            if env.id != req_id:
                if env.id is None and env.kind == "err":
                    return _result(env, method)  # the server could not read our request at all
                continue  # a late reply or heartbeat of an earlier, abandoned call
            if env.kind == "hb":
                alive_until = time.monotonic() + self._settings.heartbeat_timeout
                continue
            return _result(env, method)

    def _send(self, frames: list[Any], method: str) -> None:
        try:
            send_frames(self._sock, frames, block=False)
            return
        except zmq.Again:  # no peer to queue to (a refused handshake) or a full queue: wait a while
            pass
        # A refusal that came before the send leaves no peer: the monitor says so, and a blocking
        # send would have waited out the heartbeat timeout and blamed a lost server instead.
        give_up = time.monotonic() + self._settings.heartbeat_timeout
        while True:
            if self._monitor is None:
                time.sleep(0.005)
            elif zmq.zmq_poll([(self._monitor, zmq.POLLIN)], 5):  # waits the same 5 ms for a refusal
                raise _refused(self._settings)
            if time.monotonic() >= give_up:
                raise _unsendable(method, self._settings)
            try:
                send_frames(self._sock, frames, block=False)
                return
            except zmq.Again:
                continue

    def _reset(self) -> None:
        self._sock.close(linger=0)
        if self._monitor is not None:
            self._monitor.close(linger=0)
        self._sock, self._monitor = _socket(self._ctx, self._settings)
        self._poll_items = _poll_items(self._sock, self._monitor)

    def close(self) -> None:
        with self._lock:
            if self._monitor is not None:
                self._sock.disable_monitor()
                self._monitor.close(linger=0)
            self._sock.close(linger=0)

    def __enter__(self) -> RpcClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(slots=True)
class _Pending:
    future: asyncio.Future[Envelope]
    alive_until: float
    method: str = field(default="")


class AsyncRpcClient:
    """asyncio client: any number of calls in flight on one socket, replies matched by request id.

    The socket is a plain ZeroMQ socket that the event loop watches itself (``add_reader`` on
    ZeroMQ's FD), not a zmq.asyncio one: that costs a future, a zero-copy send (which pyzmq frees on
    a thread of its own) and several loop callbacks per message, and one loop driving 16
    environments spent a third of its time there. A reply wakes its caller directly, and each call
    has one timer that enforces both its timeout and the server's heartbeats.
    """

    def __init__(
        self,
        address: str,
        *,
        timeout: float = 30.0,
        heartbeat_timeout: float = 3.0,
        retries: int = 2,
        security: ClientSecurity | None = None,
    ) -> None:
        self._settings = _Settings(address, timeout, heartbeat_timeout, retries, security)
        self._ctx: zmq.Context[Any] = zmq.Context.instance()
        self._sock, self._monitor = _socket(self._ctx, self._settings)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop watching our sockets
        self._refusal: SecurityError | None = None

    @property
    def address(self) -> str:
        return self._settings.address

    async def call(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        idempotent: bool = False,
    ) -> Any:
        """Same contract as :meth:`RpcClient.call`."""
        attempts = 1 + (self._settings.retries if idempotent else 0)
        for attempt in range(attempts):
            try:
                return await self._call_once(method, params or {}, timeout or self._settings.timeout)
            except RpcTimeout:
                if attempt + 1 == attempts:
                    raise
        raise AssertionError("unreachable")

    async def _call_once(self, method: str, params: Mapping[str, Any], timeout: float) -> Any:
        if self._refusal is not None:
            raise self._refusal
        loop = self._watch()
        req_id = next(self._ids)
        start = loop.time()
        deadline = start + timeout
        pending = _Pending(loop.create_future(), start + self._settings.heartbeat_timeout, method)
        self._pending[req_id] = pending
        timer: asyncio.TimerHandle | None = None

        def expire() -> None:
            nonlocal timer
            if pending.future.done():
                return
            now = loop.time()
            if now >= deadline:
                pending.future.set_exception(RpcTimeout(f"{method!r} on {self.address}: no reply within {timeout:g} s"))
            elif now >= pending.alive_until:
                pending.future.set_exception(
                    ServerLost(
                        f"{method!r} on {self.address}: no reply or heartbeat for "
                        f"{self._settings.heartbeat_timeout:g} s; the server died, hung or is unreachable"
                    )
                )
            else:  # a heartbeat came in the meantime
                timer = loop.call_at(min(deadline, pending.alive_until), expire)

        try:
            await self._send(encode("req", params, id=req_id, method=method), method)
            timer = loop.call_at(min(deadline, pending.alive_until), expire)
            return _result(await pending.future, method)
        finally:
            if timer is not None:
                timer.cancel()
            self._pending.pop(req_id, None)

    def _watch(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None and not self._loop.is_closed():
                raise RuntimeError("an AsyncRpcClient serves one event loop; make one per loop")
            self._loop = loop
            loop.add_reader(self._sock.FD, self._take_replies)
            if self._monitor is not None:
                loop.add_reader(self._monitor.FD, self._take_refusal)
        return loop

    async def _send(self, frames: list[Any], method: str) -> None:
        try:
            send_frames(self._sock, frames, block=False)
        except zmq.Again:  # no peer to queue to (a refused handshake) or a full queue: wait a while
            loop = asyncio.get_running_loop()
            give_up = loop.time() + self._settings.heartbeat_timeout
            while True:
                if self._refusal is not None:
                    raise self._refusal from None
                if loop.time() >= give_up:
                    raise _unsendable(method, self._settings) from None
                await asyncio.sleep(0.005)
                try:
                    send_frames(self._sock, frames, block=False)
                    break
                except zmq.Again:
                    continue
        # ZeroMQ's FD is edge-triggered, and a send may take in replies already waiting without
        # the FD firing again for them: look for them now.
        self._take_replies()

    def _take_replies(self) -> None:
        sock, pending = self._sock, self._pending
        # Reading EVENTS both tells whether a message waits and re-arms the FD.
        while _readable(sock):
            try:
                env = decode(recv_frames(sock, block=False))
            except zmq.Again:
                return
            except ProtocolError as exc:
                for waiting in pending.values():
                    if not waiting.future.done():
                        waiting.future.set_exception(exc)
                continue
            call = pending.get(env.id) if isinstance(env.id, int) else None
            if call is None:
                continue  # a late reply or heartbeat of a call that gave up
            if env.kind == "hb":
                call.alive_until = call.future.get_loop().time() + self._settings.heartbeat_timeout
            elif not call.future.done():
                call.future.set_result(env)

    def _take_refusal(self) -> None:
        monitor = self._monitor
        if monitor is None or not _readable(monitor):
            return
        with contextlib.suppress(zmq.Again):
            recv_frames(monitor, block=False)
        self._refusal = _refused(self._settings)
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(self._refusal)

    async def close(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed() and not self._sock.closed:
            loop.remove_reader(self._sock.FD)
            if self._monitor is not None:
                loop.remove_reader(self._monitor.FD)
        self._loop = None
        if self._monitor is not None:
            self._sock.disable_monitor()
            self._monitor.close(linger=0)
        self._sock.close(linger=0)

    async def __aenter__(self) -> AsyncRpcClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
