"""Events: publishers and subscribers meeting at a forwarder (XSUB/XPUB), by dotted topic.

A message is ``[topic, envelope, *blobs]``. The topic travels as the first frame so ZeroMQ filters
subscriptions before anything is decoded; since ZeroMQ matches raw byte prefixes ("bench.run" would
also match "bench.runner"), subscribers re-check on dotted boundaries. Event ids are
``<publisher>:<sequence>``, so a subscriber can tell if it missed any.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

import zmq
import zmq.asyncio

from cua_core.addresses import check_bind, ipc_address, runtime_dir
from cua_core.codec import decode, encode
from cua_core.errors import CuaError
from cua_core.security import ClientSecurity, ServerSecurity
from cua_core.wire import recv_frames, send_frames

__all__ = [
    "AsyncPublisher",
    "AsyncSubscriber",
    "BestEffortPublisher",
    "BusAddresses",
    "Event",
    "Forwarder",
    "Publisher",
    "Subscriber",
    "check_topic",
    "ensure_forwarder",
]

# Publishers and the forwarder keep this many events queued per peer before dropping: enough for
# bursts of thousands of events (a runner starting many episodes) without loss.
HWM = 200_000

_TOPIC = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")


def check_topic(topic: str) -> str:
    """A published topic: dotted words such as ``bench.episode.done``."""
    if not isinstance(topic, str) or not _TOPIC.fullmatch(topic):
        raise ValueError(
            f"event topic {topic!r} must be dotted words of letters, digits, '_' or '-', e.g. 'bench.episode.done'"
        )
    return topic


def _prefix(topic: str) -> str:
    """A subscription: '' for everything, 'pool' or 'pool.*' for pool and all below it."""
    topic = topic.removesuffix(".*").removesuffix("*")
    return check_topic(topic) if topic else ""


class Event(NamedTuple):
    # A NamedTuple, not a frozen dataclass: built for every event, it is ~4x cheaper to create.
    topic: str
    body: Any
    id: str
    ts: float


@dataclass(frozen=True)
class BusAddresses:
    """Where publishers connect (``publish``, the forwarder's XSUB) and subscribers (``subscribe``)."""

    publish: str
    subscribe: str

    @classmethod
    def default(cls) -> BusAddresses:
        """$CUA_BUS_PUBLISH / $CUA_BUS_SUBSCRIBE, else the ipc sockets of this user's local bus."""
        return cls(
            os.environ.get("CUA_BUS_PUBLISH") or ipc_address("bus-publish"),
            os.environ.get("CUA_BUS_SUBSCRIBE") or ipc_address("bus-subscribe"),
        )


class Forwarder:
    """Moves every event from publishers to subscribers; runs in a thread or as `cua-bus serve`.

    The copying happens inside libzmq (zmq.proxy), off the GIL.
    """

    def __init__(self, addresses: BusAddresses, *, security: ServerSecurity | None = None) -> None:
        for address in (addresses.publish, addresses.subscribe):
            check_bind(address, secured=security is not None)
        self._requested = addresses
        self.addresses = addresses
        self._security = security
        self._ctx: zmq.Context[Any] = zmq.Context()
        self._control = f"inproc://cua-forwarder-{uuid.uuid4().hex}"
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._auth: Any = None

    def start(self) -> Forwarder:
        if self._security is not None:
            self._auth = self._security.start_authenticator(self._ctx, "bus forwarder")
        self._thread = threading.Thread(target=self._run, name="cua-forwarder", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self.close()
            raise self._error
        return self

    def _run(self) -> None:
        sockets: list[zmq.Socket[Any]] = []
        try:
            xsub = self._ctx.socket(zmq.XSUB)
            xpub = self._ctx.socket(zmq.XPUB)
            control = self._ctx.socket(zmq.PAIR)
            sockets = [xsub, xpub, control]
            for sock in (xsub, xpub):
                sock.linger = 0
                sock.sndhwm = sock.rcvhwm = HWM
                if self._security is not None:
                    self._security.apply(sock)
            xsub.bind(self._requested.publish)
            xpub.bind(self._requested.subscribe)
            control.bind(self._control)
            self.addresses = BusAddresses(xsub.last_endpoint.decode(), xpub.last_endpoint.decode())
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            for sock in sockets:
                sock.close(linger=0)
            return
        self._ready.set()
        try:
            zmq.proxy_steerable(xsub, xpub, None, control)
        except zmq.ContextTerminated:
            pass
        finally:
            for sock in sockets:
                sock.close(linger=0)

    def serve_forever(self) -> None:
        """Serve until the process is interrupted (starting first if needed)."""
        if self._thread is None:
            self.start()
        assert self._thread is not None
        while self._thread.is_alive():
            self._thread.join(0.5)

    def close(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            stop = self._ctx.socket(zmq.PAIR)
            stop.connect(self._control)
            stop.send(b"TERMINATE")
            self._thread.join()
            stop.close(linger=0)
        if self._auth is not None:
            self._auth.stop()
            self._auth = None
        self._ctx.destroy(linger=0)

    def __enter__(self) -> Forwarder:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class _PublisherBase:
    def __init__(self, ctx: Any, address: str, security: ClientSecurity | None) -> None:
        # XPUB rather than PUB: it publishes the same way, and it also hears the subscriptions the
        # forwarder passes up, so a publisher can wait until its first events will be delivered.
        self._sock = ctx.socket(zmq.XPUB)
        self._sock.linger = 1000  # let queued events leave on close, without hanging forever
        self._sock.sndhwm = HWM
        if security is not None:
            security.apply(self._sock)
        self._sock.connect(address)
        self._name = uuid.uuid4().hex[:12]
        self._seq = 0
        self._topics: dict[str, bytes] = {}  # checked topics, encoded: most publishers reuse a few

    def _frames(self, topic: str, body: Any) -> list[Any]:
        self._seq += 1
        raw = self._topics.get(topic)
        if raw is None:
            raw = self._topics[topic] = check_topic(topic).encode()
        return [raw, *encode("event", body, id=f"{self._name}:{self._seq}", topic=topic)]


class Publisher(_PublisherBase):
    """Publishes events to the forwarder. Not thread-safe: one per thread."""

    def __init__(self, address: str, *, security: ClientSecurity | None = None) -> None:
        super().__init__(zmq.Context.instance(), address, security)

    def wait_subscribed(self, timeout: float) -> bool:
        """Wait until some subscriber's subscription has reached this publisher (ZeroMQ drops
        events published before that: the slow-joiner problem). False after ``timeout`` seconds."""
        if not self._sock.poll(int(timeout * 1000)):
            return False
        while self._sock.poll(0):
            self._sock.recv()  # drain subscription notices; they are only a signal here
        return True

    def publish(self, topic: str, body: Any = None) -> None:
        send_frames(self._sock, self._frames(topic, body))

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Publisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncPublisher(_PublisherBase):
    def __init__(self, address: str, *, security: ClientSecurity | None = None) -> None:
        super().__init__(zmq.asyncio.Context.instance(), address, security)

    async def publish(self, topic: str, body: Any = None) -> None:
        await self._sock.send_multipart(self._frames(topic, body), copy=False)

    def close(self) -> None:
        self._sock.close()


class _SubscriberBase:
    def __init__(self, ctx: Any, address: str, topics: Iterable[str], security: ClientSecurity | None) -> None:
        self._sock = ctx.socket(zmq.SUB)
        self._sock.linger = 0
        self._sock.rcvhwm = HWM
        if security is not None:
            security.apply(self._sock)
        self._prefixes: set[str] = set()
        self._below: tuple[str, ...] = ()  # "p." for each prefix p, for one C-level startswith
        self._rcvtimeo = -1
        self._sock.connect(address)
        for topic in topics:
            self.subscribe(topic)

    def subscribe(self, topic: str) -> None:
        prefix = _prefix(topic)
        self._prefixes.add(prefix)
        self._below = tuple(p + "." for p in self._prefixes)
        self._sock.subscribe(prefix.encode())

    def unsubscribe(self, topic: str) -> None:
        prefix = _prefix(topic)
        self._prefixes.discard(prefix)
        self._below = tuple(p + "." for p in self._prefixes)
        self._sock.unsubscribe(prefix.encode())

    def _event(self, frames: list[Any]) -> Event | None:
        """Decode; None for an event that only matched ZeroMQ's byte prefix, not a dotted one."""
        env = decode(frames[1:])
        topic = env.topic
        assert topic is not None
        if topic not in self._prefixes and not topic.startswith(self._below) and "" not in self._prefixes:
            return None
        return Event(topic, env.body, str(env.id), env.ts)


class Subscriber(_SubscriberBase):
    """Receives events whose topic is one of ``topics`` or below one ('' = everything)."""

    def __init__(self, address: str, topics: Iterable[str] = ("",), *, security: ClientSecurity | None = None) -> None:
        super().__init__(zmq.Context.instance(), address, topics, security)

    def recv(self, timeout: float | None = None) -> Event | None:
        """The next event, or None if none came within ``timeout`` seconds."""
        # A receive timeout on the socket instead of a poll before each receive: the poll would
        # cost more than decoding the event (this is the TUI's and the runner's hot loop).
        rcvtimeo = -1 if timeout is None else max(0, int(timeout * 1000))
        if rcvtimeo != self._rcvtimeo:
            self._sock.rcvtimeo = self._rcvtimeo = rcvtimeo
        while True:
            try:
                frames = recv_frames(self._sock)
            except zmq.Again:
                return None
            event = self._event(frames)
            if event is not None:
                return event

    def __iter__(self) -> Iterator[Event]:
        while True:
            event = self.recv()
            if event is not None:
                yield event

    def close(self) -> None:
        self._sock.close(linger=0)

    def __enter__(self) -> Subscriber:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncSubscriber(_SubscriberBase):
    def __init__(self, address: str, topics: Iterable[str] = ("",), *, security: ClientSecurity | None = None) -> None:
        super().__init__(zmq.asyncio.Context.instance(), address, topics, security)

    async def recv(self, timeout: float | None = None) -> Event | None:
        poll_ms = None if timeout is None else timeout * 1000
        while True:
            if not await self._sock.poll(poll_ms):
                return None
            event = self._event(await self._sock.recv_multipart(copy=False))
            if event is not None:
                return event

    async def __aiter__(self) -> AsyncIterator[Event]:
        while True:
            event = await self.recv()
            if event is not None:
                yield event

    def close(self) -> None:
        self._sock.close(linger=0)


class BestEffortPublisher:
    """A run's progress events on this machine's bus: thread-safe, and never waited on or failed for.

    A run (an evaluation, a training run) must not stop because nobody watches. It always connects:
    ZeroMQ connects again by itself, so a forwarder started after the run (a TUI opened mid-run)
    still gets the events from then on; only the wait for a first subscriber is skipped when there
    is no forwarder yet. ``check(topic, body)`` (optional) validates each payload first, so a
    publisher that drifts from its documented payload fails in tests.
    """

    def __init__(self, run_id: str, *, check: Callable[[str, dict[str, Any]], object] | None = None) -> None:
        self.run_id = run_id
        self.check = check
        self.lock = threading.Lock()
        self.publisher: Publisher | None = None
        try:
            address = BusAddresses.default().publish
            listening = not address.startswith("ipc://") or os.path.exists(address.removeprefix("ipc://"))
            self.publisher = Publisher(address)
            if listening:
                self.publisher.wait_subscribed(0.5)  # so the run's first events are not lost
        except (CuaError, ValueError, OSError, zmq.ZMQError):
            self.publisher = None

    def publish(self, topic: str, body: dict[str, Any]) -> None:
        body = {"run": self.run_id, **body}
        if self.check is not None:
            self.check(topic, body)
        if self.publisher is not None:
            with self.lock:
                self.publisher.publish(topic, body)

    def close(self) -> None:
        if self.publisher is not None:
            self.publisher.close()


def _answers(address: str) -> bool:
    """Something accepts connections at ``address`` (an ipc socket file alone may be left over)."""
    scheme, _, rest = address.partition("://")
    try:
        if scheme == "ipc":
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(1.0)
                probe.connect(rest)
        elif scheme == "tcp":
            host, _, port = rest.rpartition(":")
            socket.create_connection((host.strip("[]"), int(port)), timeout=1.0).close()
        else:
            return False
    except (OSError, ValueError):
        return False
    return True


def ensure_forwarder(addresses: BusAddresses | None = None, *, timeout: float = 10.0) -> bool:
    """Start a detached ``cua-bus serve`` unless a forwarder answers at ``addresses`` (default: this
    user's local bus); True if it started one, once it answers.

    For whoever watches (the TUI): the forwarder must outlive the watcher, so it gets its own session
    and logs to ``bus.log`` in the runtime dir (its pid in ``bus.pid``). A lock file keeps two callers
    from starting two forwarders, the second of which would take the first one's ipc socket over.
    """
    addresses = addresses or BusAddresses.default()
    if _answers(addresses.publish) and _answers(addresses.subscribe):
        return False
    import fcntl  # here, not at the top: the rest of this module serves a Windows guest's env server too

    folder = runtime_dir()
    with open(folder / "bus.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _answers(addresses.publish) and _answers(addresses.subscribe):
            return False  # another caller started one meanwhile
        log_path = folder / "bus.log"
        command = [sys.executable, "-m", "cua_core.cli", "serve"]
        command += ["--publish", addresses.publish, "--subscribe", addresses.subscribe]
        # posix_spawn, not Popen: nothing here waits for the forwarder, and a Popen object that is
        # never waited on warns when it is collected.
        files = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, str(log_path), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        pid = os.posix_spawn(sys.executable, command, dict(os.environ), file_actions=files, setsid=True)
        (folder / "bus.pid").write_text(f"{pid}\n")
        deadline = time.monotonic() + timeout
        while not (_answers(addresses.publish) and _answers(addresses.subscribe)):
            exited = os.waitpid(pid, os.WNOHANG)[0] == pid
            if exited or time.monotonic() > deadline:
                if not exited:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                tail = log_path.read_text(errors="replace")[-2000:].strip() if log_path.exists() else ""
                raise CuaError(
                    f"`cua-bus serve` did not start a forwarder at {addresses.publish}: {tail or 'no output'}"
                )
            time.sleep(0.02)
    return True
