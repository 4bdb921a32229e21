"""The host agent: registers this computer, takes work from the controller and runs spaces.

Two loops, each with its own RPC client: ``work`` long-polls the controller for members to start
or stop (so a placed member starts within one round trip), and ``watch`` ships logs, notices
members that ended, escalates stops and heartbeats with the whole local state. Reports are
level-triggered (every heartbeat repeats each member's state), so nothing is lost when the
controller restarts or a reply goes missing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import socket
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cua_core import ClientSecurity, CuaError, RemoteError, RpcClient, RpcServer, SecurityError
from cua_pool.facts import check_supported, host_facts, load
from cua_pool.registry import space_runtimes
from cua_pool.spaces import Handle, Space, SpaceRuntime

__all__ = ["HostAgent"]

log = logging.getLogger(__name__)

CHUNK = 256 << 10
STOP_GRACE = 3.0  # seconds between SIGTERM and SIGKILL
MAX_RESULT = 16 << 20


@dataclass
class _Member:
    space: Space
    spec: dict[str, Any]
    handle: Handle
    token: str
    state: str = "running"  # running | exited
    exit_code: int | None = None
    shipped: int = 0
    ship: bool = True
    synced: bool = False  # the controller told us where this member's log continues
    stop_at: float = 0.0  # when SIGTERM was sent; 0: not stopping
    reported: bool = False  # the controller has heard that it ended
    lost: str = ""  # why it ended with its computer (its runtime said so), which restarts the gang


class HostAgent:
    def __init__(
        self,
        controller: str,
        *,
        host_id: str,
        name: str,
        home: Path,
        max_spaces: int,
        advertise: str | None = None,
        security: ClientSecurity | None = None,
        tick: float = 0.02,
    ) -> None:
        check_supported()
        if max_spaces < 1:
            raise ValueError(f"--max-spaces must be >= 1, got {max_spaces}")
        self.controller = controller
        self.host_id = host_id
        self.name = name
        self.home = home
        self.spaces = home / "spaces"
        self.spaces.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.max_spaces = max_spaces
        self.advertise = advertise or _advertise_address(controller)
        self._iface = interface_of(self.advertise)
        self.security = security
        self.tick = tick
        self.heartbeat_interval = 1.0
        self._members: dict[str, _Member] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._runtimes: dict[str, SpaceRuntime] = {}
        self._registry = space_runtimes()
        self._threads: list[threading.Thread] = []
        self._proxy = RpcServer("tcp://127.0.0.1:0", workers=4, name="pool-space-proxy")
        self._proxy_client = self._client(timeout=60)
        self._proxy_lock = threading.Lock()
        for method in ("save", "latest", "load"):
            self._proxy.register(f"ckpt.{method}", self._proxied(method))
        self._registered = threading.Event()
        self._news = threading.Event()

    def _client(self, timeout: float = 30.0) -> RpcClient:
        # Short: the controller heartbeats every in-flight call twice a second, and a restarted one must
        # hear from us well within its host timeout.
        return RpcClient(self.controller, timeout=timeout, heartbeat_timeout=1.5, retries=0, security=self.security)

    def _runtime(self, name: str) -> SpaceRuntime:
        if name not in self._runtimes:
            self._runtimes[name] = self._registry[name]()
        return self._runtimes[name]

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> HostAgent:
        self._proxy.start()
        self._adopt()
        for target in (self._work_loop, self._watch_loop):
            thread = threading.Thread(target=target, name=f"pool-agent-{target.__name__}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def run_forever(self) -> None:
        self.start()
        try:
            while not self._stop.wait(0.5):
                pass
        finally:
            self.close()

    def close(self) -> None:
        """Stop the agent, not its members: they keep running and the next agent adopts them."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=10)
        self._proxy.close()
        self._proxy_client.close()

    def wait_registered(self, timeout: float) -> bool:
        return self._registered.wait(timeout)

    def _adopt(self) -> None:
        """Find members that outlived the previous agent, from their space folders alone."""
        for root in sorted(self.spaces.iterdir()):
            space = Space(root)
            try:
                meta = space.read_meta()
            except (OSError, ValueError):
                shutil.rmtree(root, ignore_errors=True)  # never started: nothing to adopt
                continue
            handle = Handle(**meta["handle"])
            member = _Member(space, meta["spec"], handle, meta["token"], meta.get("state", "running"))
            member.exit_code = meta.get("exit_code")
            member.lost = meta.get("lost", "")
            with contextlib.suppress(OSError):
                (root / "agent_address").write_text(self._proxy.address)
            self._members[space.id] = member
            log.info("adopted member %s (%s)", space.id, member.state)

    # -- registering and taking work ----------------------------------------------------------

    def _register(self, client: RpcClient) -> None:
        facts = host_facts()
        reply = client.call(
            "host.register",
            {
                "host_id": self.host_id,
                "name": self.name,
                "address": self.advertise,
                "max_spaces": self.max_spaces,
                "gang_runtimes": [
                    n for n in self._registry.names() if getattr(self._registry[n], "places_gangs", False)
                ],
                **facts,
            },
        )
        self.heartbeat_interval = float(reply["heartbeat_interval"])
        self._registered.set()
        log.info("registered with %s as %s (%s)", self.controller, self.name, self.host_id)

    def _work_loop(self) -> None:
        client = self._client()
        registered = False
        while not self._stop.is_set():
            try:
                if not registered:
                    self._register(client)
                    registered = True
                with self._lock:
                    have = sorted(self._members)
                    waiting = sorted(k for k, m in self._members.items() if m.stop_at or m.state != "running")
                reply = client.call(
                    "host.work",
                    {"host_id": self.host_id, "have": have, "waiting": waiting, "wait": self.heartbeat_interval},
                    timeout=self.heartbeat_interval + 10,
                )
                for spec in reply["start"]:
                    self._launch(client, spec)
                for member_id in reply["stop"]:
                    self._stop_member(member_id)
            except SecurityError as exc:
                log.error("the controller refused this host: %s (pair with `cua host pair`)", exc)
                client.close()
                client = self._client()
                self._stop.wait(2.0)
            except RemoteError as exc:
                if exc.remote_type == "LookupError":
                    registered = False  # the controller forgot us (a new database): join again
                log.warning("controller: %s", exc)
                self._stop.wait(0.5)
            except CuaError as exc:
                log.debug("controller unreachable: %s", exc)
                client.close()
                client = self._client()
                self._stop.wait(0.2)
            except Exception:
                # One bad space (a vanished file, a runtime's error) must not stop the agent.
                log.exception("host agent loop")
                self._stop.wait(0.5)
        client.close()

    def _launch(self, client: RpcClient, spec: dict[str, Any]) -> None:
        member_id = spec["id"]
        code = bytes(client.call("host.code", {"job": spec["job"]}, timeout=120))
        space = Space.create(self.spaces, spec, code)
        token = secrets.token_hex(16)
        (space.root / "agent_address").write_text(self._proxy.address)
        space.write_meta({"spec": spec, "token": token, "handle": asdict(Handle(spec["runtime"])), "state": "starting"})
        env = space.environment(spec, self._proxy.address, token)
        if self._iface:
            # gloo and NCCL pick an interface from the host name, which in a namespace, a container
            # or a multi-homed host is often the wrong one: use the one the pool knows us by.
            env.setdefault("GLOO_SOCKET_IFNAME", self._iface)
            env.setdefault("NCCL_SOCKET_IFNAME", self._iface)
        try:
            runtime = self._runtime(spec["runtime"])
            handle = runtime.start(space, env)
        except Exception as exc:
            # A member that cannot start is a failed member, not a crashed agent.
            with space.log.open("ab") as out:
                out.write(f"cua-pool: cannot start this member on {self.name}: {exc}\n".encode())
            handle = Handle(spec["runtime"])
            member = _Member(space, spec, handle, token, "exited", exit_code=127)
        else:
            member = _Member(space, spec, handle, token)
        self._save(member)
        with self._lock:
            self._members[member_id] = member
        self._news.set()  # tell the controller it runs now, not at the next heartbeat
        log.info("started %s (rank %s of job %s)", member_id, spec["rank"], spec["job"])

    def _stop_member(self, member_id: str) -> None:
        with self._lock:
            member = self._members.get(member_id)
        if member is None:
            return
        if member.state == "running":
            if not member.stop_at:
                member.stop_at = time.monotonic()
                self._runtime(member.spec["runtime"]).stop(member.space, member.handle, force=False)
            return
        if not member.reported:
            return  # the controller must hear how it ended before the space goes
        # Ended, reported, and the controller no longer needs it: the space goes.
        with self._lock:
            self._members.pop(member_id, None)
        shutil.rmtree(member.space.root, ignore_errors=True)
        with contextlib.suppress(OSError):
            member.space.stash.rmdir()

    def _save(self, member: _Member) -> None:
        member.space.write_meta(
            {
                "spec": member.spec,
                "token": member.token,
                "handle": asdict(member.handle),
                "state": member.state,
                "exit_code": member.exit_code,
                "lost": member.lost,
            }
        )

    # -- watching members ---------------------------------------------------------------------

    def _watch_loop(self) -> None:
        client = self._client()
        next_beat = 0.0
        while not self._stop.wait(self.tick):
            try:
                ended = self._check_members(client)
                news = self._news.is_set()
                self._news.clear()
                if ended or news or time.monotonic() >= next_beat:
                    if self._registered.is_set():
                        self._report(client)
                    next_beat = time.monotonic() + self.heartbeat_interval / 2
            except CuaError as exc:
                log.debug("controller unreachable: %s", exc)
                client.close()
                client = self._client()
                self._stop.wait(0.2)
            except Exception:
                # One bad space (a vanished file, a runtime's error) must not stop the agent.
                log.exception("host agent loop")
                self._stop.wait(0.5)
        client.close()

    def _check_members(self, client: RpcClient) -> bool:
        ended = False
        with self._lock:
            members = list(self._members.items())
        for member_id, member in members:
            if member.state != "running":
                if not member.reported:
                    self._ship(client, member_id, member)  # e.g. why it could not start
                continue
            runtime = self._runtime(member.spec["runtime"])
            alive = runtime.running(member.space, member.handle)
            self._ship(client, member_id, member)
            if alive:
                if member.stop_at and time.monotonic() - member.stop_at > STOP_GRACE:
                    runtime.stop(member.space, member.handle, force=True)
                continue
            member.exit_code = runtime.exit_code(member.space, member.handle)
            lost = getattr(runtime, "lost", None)  # optional: a runtime that knows its member's computer died
            if member.exit_code is None and lost is not None:
                member.lost = lost(member.space, member.handle) or ""
            runtime.stop(member.space, member.handle, force=True)  # whatever it left behind
            member.state = "exited"
            self._save(member)
            ended = True
        return ended

    def _ship(self, client: RpcClient, member_id: str, member: _Member) -> None:
        if not member.ship:
            return
        with member.space.log.open("rb") as src:
            while True:
                src.seek(member.shipped)
                data = src.read(CHUNK)
                if not data and member.synced:
                    return
                reply = client.call(
                    "host.logs", {"host_id": self.host_id, "member": member_id, "offset": member.shipped, "data": data}
                )
                member.synced = True
                if not reply["accept"]:
                    member.ship = False
                    return
                resumed = int(reply["next"])
                if resumed != member.shipped + len(data):
                    member.shipped = resumed  # the controller already had more (or less): continue there
                    continue
                member.shipped = resumed
                if len(data) < CHUNK:
                    return

    def _report(self, client: RpcClient) -> None:
        reports = []
        with self._lock:
            members = list(self._members.items())
        ended = [m for _, m in members if m.state == "exited"]
        for member_id, member in members:
            report: dict[str, Any] = {
                "id": member_id,
                "state": member.state,
                "space": {
                    "path": str(member.space.root),
                    "runtime": member.handle.kind,
                    "handle": asdict(member.handle),
                },
            }
            if member.state == "exited":
                report["exit_code"] = member.exit_code
                if member.lost:
                    report["state"], report["reason"] = "lost", member.lost
                elif member.exit_code is None:
                    report["state"] = "failed"
                    report["reason"] = "ended without an exit status (its session was killed)"
                elif member.exit_code != 0:
                    report["reason"] = f"exit code {member.exit_code}"
                result = member.space.read_result() if member.spec["rank"] == 0 else None
                if result is not None and len(result[1]) <= MAX_RESULT:
                    report["result_format"], report["result"] = result
            reports.append(report)
        client.call("host.report", {"host_id": self.host_id, "members": reports, "load": load()})
        for member in ended:
            member.reported = True

    # -- checkpoints for spaces ---------------------------------------------------------------

    def _proxied(self, method: str) -> Any:
        def call(token: str, **params: Any) -> Any:
            with self._lock:
                member = next((m for m in self._members.values() if m.token == token), None)
            if member is None:
                raise PermissionError("this space's token is not known to the host agent")
            with self._proxy_lock:
                return self._proxy_client.call(f"ckpt.{method}", {"job": member.spec["job"], **params}, timeout=120)

        return call


def _advertise_address(controller: str) -> str:
    """The address other hosts reach us at: the local end of a route towards the controller."""
    scheme, _, rest = controller.partition("://")
    if scheme != "tcp":
        return "127.0.0.1"
    host = rest.rsplit(":", 1)[0].strip("[]")
    if host in ("localhost", "127.0.0.1", "::1"):
        return "127.0.0.1"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((host, 9))  # UDP connect sends nothing; it only picks the route
        return str(probe.getsockname()[0])


def interface_of(address: str) -> str | None:
    """The network interface holding ``address`` (Linux), or None when it cannot be told."""
    if sys.platform != "linux":
        return None
    import fcntl
    import struct

    siocgifaddr = 0x8915
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                packed = fcntl.ioctl(probe.fileno(), siocgifaddr, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue
        if socket.inet_ntoa(packed[20:24]) == address:
            return name
    return None


def default_name() -> str:
    return socket.gethostname().split(".")[0] or f"host-{os.getpid()}"
