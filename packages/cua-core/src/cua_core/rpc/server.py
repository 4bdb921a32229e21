"""The RPC server: one ROUTER socket, one I/O thread, handlers off that thread unless marked inline.

Why this shape (measured, bench/bus.py): a sync poll loop costs about what raw pyzmq costs, while
zmq.asyncio adds ~80 us a round trip and a thread-pool hand-off ~90 us. So the I/O thread only
moves frames and sends heartbeats; blocking handlers run in a worker pool (the I/O thread keeps
heartbeating while they work, which is how a client tells a slow server from a dead one),
``async def`` handlers share one event-loop thread, and cheap non-blocking handlers may opt into
``inline=True`` to skip the hand-off.
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import logging
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import zmq

from cua_core.addresses import check_bind
from cua_core.codec import Frame, decode, encode
from cua_core.errors import ProtocolError
from cua_core.security import ServerSecurity
from cua_core.wire import recv_frames, send_frames

__all__ = ["RpcServer"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Method:
    fn: Callable[..., Any]
    inline: bool
    is_async: bool


@dataclass(slots=True)
class _InFlight:
    ident: bytes
    req_id: int | str | None
    started: float


class RpcServer:
    """Serves named methods to any number of clients, many requests in flight at once.

    Handlers take the request's named parameters and return any value the codec can encode
    (bytes and numpy arrays travel as binary frames). An exception becomes an error reply that the
    client raises as ``RemoteError`` with the remote type, message and traceback.
    """

    def __init__(
        self,
        address: str,
        *,
        security: ServerSecurity | None = None,
        workers: int = 16,
        heartbeat_interval: float = 0.5,
        name: str = "rpc",
    ) -> None:
        check_bind(address, secured=security is not None)
        if heartbeat_interval <= 0:
            raise ValueError(f"heartbeat_interval must be > 0 seconds, got {heartbeat_interval}")
        self.name = name
        self._requested_address = address
        self._security = security
        self._heartbeat_interval = heartbeat_interval
        self._workers = workers
        self._methods: dict[str, _Method] = {}
        self._ctx: zmq.Context[Any] = zmq.Context()
        self._auth: Any = None
        self._results_address = f"inproc://cua-rpc-results-{uuid.uuid4().hex}"
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._stopped = threading.Event()  # the I/O thread is gone: no reply can be sent any more
        self._drain_until = 0.0
        self._startup_error: BaseException | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self._loop_lock = threading.Lock()
        self._local = threading.local()
        self._push_sockets: list[zmq.Socket[Any]] = []
        self._push_lock = threading.Lock()
        self.address = address
        self.register("rpc.ping", _ping, inline=True)
        self.register("rpc.methods", self.methods, inline=True)

    # -- registration ---------------------------------------------------------------------------

    def register(self, name: str, fn: Callable[..., Any], *, inline: bool = False) -> None:
        """Serve ``fn`` as ``name``. ``inline=True`` runs it on the I/O thread: it must not block."""
        if not name or not isinstance(name, str):
            raise ValueError(f"method name must be a non-empty str, got {name!r}")
        if name in self._methods:
            raise ValueError(f"method {name!r} is already registered on {self.name}")
        is_async = inspect.iscoroutinefunction(fn)
        if is_async and inline:
            raise ValueError(f"method {name!r}: async handlers cannot be inline")
        self._methods[name] = _Method(fn, inline, is_async)
        if is_async and self._thread is not None:
            # Registered after start(): the I/O thread would find no event loop for it and die.
            self._start_loop()

    def methods(self) -> list[str]:
        """The names this server answers, sorted."""
        return sorted(self._methods)

    def method(
        self, name: str | None = None, *, inline: bool = False
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator form of :meth:`register`; the name defaults to the function's name."""

        def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.register(name or fn.__name__, fn, inline=inline)
            return fn

        return decorate

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> RpcServer:
        """Bind and serve in background threads; returns once the address is bound."""
        if self._thread is not None:
            raise RuntimeError(f"{self.name} is already started")
        if self._security is not None:
            self._auth = self._security.start_authenticator(self._ctx, self.name)
        self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix=f"{self.name}-worker")
        if any(m.is_async for m in self._methods.values()):
            self._start_loop()
        self._thread = threading.Thread(target=self._serve, name=f"{self.name}-io", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._startup_error is not None:
            self.close()
            raise self._startup_error
        return self

    def serve_forever(self) -> None:
        """Serve until the process is interrupted (starting first if needed)."""
        if self._thread is None:
            self.start()
        assert self._thread is not None
        while self._thread.is_alive():
            self._thread.join(0.5)

    def close(self, grace: float = 0.5) -> None:
        """Stop serving. Replies of requests in flight are still sent for up to ``grace`` seconds
        (so a ``close`` method's own reply arrives); requests running longer are abandoned."""
        self._drain_until = time.monotonic() + grace
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._wake()
            self._thread.join()
        self._stopped.set()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._loop_thread is not None:
                self._loop_thread.join(timeout=5)
        with self._push_lock:
            for sock in self._push_sockets:
                sock.close(linger=0)
            self._push_sockets.clear()
        if self._auth is not None:
            self._auth.stop()
            self._auth = None
        self._ctx.destroy(linger=0)

    def __enter__(self) -> RpcServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the I/O thread -------------------------------------------------------------------------

    def _serve(self) -> None:
        try:
            router = self._ctx.socket(zmq.ROUTER)
            router.linger = 0
            router.sndhwm = router.rcvhwm = 100_000
            if self._security is not None:
                self._security.apply(router)
            router.bind(self._requested_address)
            self.address = router.last_endpoint.decode()
            results = self._ctx.socket(zmq.PULL)
            results.linger = 0
            results.bind(self._results_address)
        except BaseException as exc:
            self._startup_error = exc
            self._ready.set()
            return
        self._ready.set()
        log.debug("%s serving on %s", self.name, self.address)
        inflight: dict[int, _InFlight] = {}
        next_token = 1
        items = [(router, zmq.POLLIN), (results, zmq.POLLIN)]
        next_beat = 0.0
        try:
            while not self._stop.is_set() or (inflight and time.monotonic() < self._drain_until):
                # Heartbeats are owed only while a request is in flight: an idle server sleeps in the
                # poll until a message comes (close() sends one, _wake), so hundreds of idle servers on
                # one computer cost no CPU (issue 36: a 0.5 s tick each was most of their idle cost).
                wait_ms = max(0, int((next_beat - time.monotonic()) * 1000)) if inflight else -1
                if self._stop.is_set():
                    wait_ms = 10 if wait_ms < 0 else min(wait_ms, 10)  # draining: look at the deadline often
                # One message per socket per wake-up: polling again is cheaper than the zmq.Again
                # exception a non-blocking drain ends with, and both sockets are served fairly.
                for sock, _ in zmq.zmq_poll(items, wait_ms):
                    if sock is router:
                        idle = not inflight
                        self._dispatch(router, recv_frames(router), next_token, inflight)
                        next_token += 1
                        if idle and inflight:  # the clock starts with the first request in flight
                            next_beat = time.monotonic() + self._heartbeat_interval
                    else:
                        done = recv_frames(results)
                        entry = inflight.pop(int.from_bytes(done[0].bytes, "little"), None)
                        if entry is not None:
                            send_frames(router, [entry.ident, *done[1:]])
                now = time.monotonic()
                if inflight and now >= next_beat:
                    self._heartbeat(router, inflight, now)
                    next_beat = now + self._heartbeat_interval
        finally:
            router.close(linger=0)
            results.close(linger=0)

    def _dispatch(self, router: zmq.Socket[Any], frames: list[Any], token: int, inflight: dict[int, _InFlight]) -> None:
        ident = frames[0].bytes
        if len(frames) < 2:
            send_frames(router, [ident, *_error(None, "MalformedMessage", "no envelope frame")])
            return
        try:
            env = decode(frames[1:])
        except ProtocolError as exc:
            send_frames(router, [ident, *_error(None, type(exc).__name__, str(exc))])
            return
        if env.kind != "req":
            reply = _error(env.id, "MalformedMessage", f"a server accepts kind 'req', got {env.kind!r}")
            send_frames(router, [ident, *reply])
            return
        assert env.method is not None  # decode guarantees it for requests
        method = self._methods.get(env.method)
        if method is None:
            send_frames(router, [ident, *self._unknown(env.id, env.method)])
            return
        if not isinstance(env.body, dict):
            reply = _error(
                env.id,
                "BadRequest",
                f"{env.method}: the request body must be a map of named parameters, got {type(env.body).__name__}",
            )
            send_frames(router, [ident, *reply])
            return
        if method.inline:
            send_frames(router, [ident, *_run(method.fn, env.method, env.id, env.body)])
            return
        inflight[token] = _InFlight(ident, env.id, time.monotonic())
        tag = token.to_bytes(8, "little")
        if method.is_async:
            assert self._loop is not None
            asyncio.run_coroutine_threadsafe(self._run_async(method.fn, env.method, env.id, env.body, tag), self._loop)
        else:
            assert self._pool is not None
            self._pool.submit(self._run_in_worker, method.fn, env.method, env.id, env.body, tag)

    def _heartbeat(self, router: zmq.Socket[Any], inflight: dict[int, _InFlight], now: float) -> None:
        for entry in inflight.values():
            if now - entry.started >= self._heartbeat_interval:
                send_frames(router, [entry.ident, *encode("hb", None, id=entry.req_id)])

    def _unknown(self, req_id: int | str | None, name: str) -> list[Frame]:
        close = difflib.get_close_matches(name, list(self._methods), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        known = ", ".join(sorted(self._methods))
        return _error(req_id, "MethodNotFound", f"no method {name!r} on {self.name}{hint} (serves: {known})")

    # -- workers --------------------------------------------------------------------------------

    def _run_in_worker(
        self,
        fn: Callable[..., Any],
        name: str,
        req_id: int | str | None,
        params: dict[str, Any],
        tag: bytes,
    ) -> None:
        self._push([tag, *_run(fn, name, req_id, params)])

    async def _run_async(
        self,
        fn: Callable[..., Any],
        name: str,
        req_id: int | str | None,
        params: dict[str, Any],
        tag: bytes,
    ) -> None:
        try:
            result = await fn(**params)
            reply = _reply(req_id, result)
        except Exception as exc:
            reply = _exception_reply(req_id, fn, name, params, exc)
        self._push([tag, *reply])

    def _push(self, frames: list[Frame]) -> None:
        """Hand a finished reply to the I/O thread, through this thread's own PUSH socket.

        Still while close() drains (its ``grace``): a ``close`` method's own reply, finished after
        close() began (on another thread), is sent then; it was dropped before."""
        if self._stopped.is_set():
            return
        sock = getattr(self._local, "push", None)
        if sock is None:
            with self._push_lock:
                if self._stopped.is_set():
                    return
                sock = self._ctx.socket(zmq.PUSH)
                sock.linger = 0
                # Once close() has stopped the I/O thread, a PUSH has no peer and a send would block
                # for ever; with a timeout the worker gives up and close() can join it.
                sock.sndtimeo = 1000
                sock.connect(self._results_address)
                self._push_sockets.append(sock)
            self._local.push = sock
        try:
            send_frames(sock, frames)
        except zmq.ZMQError:
            if not self._stop.is_set():  # at shutdown the context may already be gone: nothing to send
                raise

    def _wake(self) -> None:
        """Interrupt the I/O thread's poll so close() does not wait for the next heartbeat."""
        sock = self._ctx.socket(zmq.PUSH)
        try:
            sock.connect(self._results_address)
            send_frames(sock, [b"\0" * 8], block=False)
        except zmq.ZMQError:
            pass
        finally:
            sock.close(linger=100)

    def _start_loop(self) -> None:
        with self._loop_lock:  # once, whichever of start() and a late register() comes first
            if self._loop is not None:
                return
            loop = asyncio.new_event_loop()
            self._loop_thread = threading.Thread(target=loop.run_forever, name=f"{self.name}-async", daemon=True)
            self._loop_thread.start()
            self._loop = loop


def _ping() -> str:
    return "pong"


def _run(fn: Callable[..., Any], name: str, req_id: int | str | None, params: dict[str, Any]) -> list[Frame]:
    try:
        return _reply(req_id, fn(**params))
    except Exception as exc:
        return _exception_reply(req_id, fn, name, params, exc)


def _reply(req_id: int | str | None, result: Any) -> list[Frame]:
    try:
        return encode("rep", result, id=req_id)
    except TypeError as exc:
        return _error(req_id, "TypeError", f"the result could not be sent: {exc}")


def _exception_reply(
    req_id: int | str | None,
    fn: Callable[..., Any],
    name: str,
    params: dict[str, Any],
    exc: Exception,
) -> list[Frame]:
    if isinstance(exc, TypeError):
        problem = _bad_params(fn, params)  # "called wrong" vs a TypeError inside the handler
        if problem:
            return _error(req_id, "BadRequest", f"{name}{problem}")
    remote_type = type(exc).__qualname__
    module = type(exc).__module__
    if module not in ("builtins", "__main__"):
        remote_type = f"{module}.{remote_type}"
    notes = [str(note) for note in getattr(exc, "__notes__", [])]
    return _error(req_id, remote_type, str(exc), traceback.format_exc(), notes)


def _bad_params(fn: Callable[..., Any], params: dict[str, Any]) -> str:
    """What is wrong with ``params`` for ``fn``, or '' if they fit its signature."""
    sig = inspect.signature(fn)
    try:
        sig.bind(**params)
    except TypeError as exc:
        wanted = list(sig.parameters)
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())
        unexpected = [k for k in params if k not in wanted and not takes_any]
        reason = f"unexpected parameter {', '.join(map(repr, unexpected))}" if unexpected else str(exc)
        return f"({', '.join(wanted)}): {reason}"
    return ""


def _error(
    req_id: int | str | None, remote_type: str, message: str, tb: str = "", notes: list[str] | None = None
) -> list[Frame]:
    body: dict[str, Any] = {"type": remote_type, "message": message, "traceback": tb}
    if notes:  # only when there are some: a client older than notes reads the reply as before
        body["notes"] = notes
    return encode("err", body, id=req_id)
