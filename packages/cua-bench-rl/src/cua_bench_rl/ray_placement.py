"""Env workers on a Ray cluster: a Backend whose computers are env servers inside Ray actors.

``provision`` opens an environment in one of our actors with a place left, or starts a new actor (on any
node the cluster's scheduler picks, spread across nodes). The actor builds the inner backend's Session
(``sim``, ``local``) in its own process and serves it with cua-bench's env server on tcp at its node's
address, with CURVE: a key pair made fresh for that actor and only this computer's key allowed. An actor
serves one environment, or up to the inner backend's ``per_server`` (as a ``sim`` host does).
Rollouts then talk to the server directly, as with the pool placement; Ray only schedules, supervises
and reports deaths. Frames stay on our bus (shared memory on one host, the socket across), not Ray's
object store: ``bench/rl.py --placement ray`` measures both on one node.

The actor is owned by this process (not detached), so a driver that dies takes its env servers with it,
and a node that dies takes its actors: ``failure`` then says so, and ``EnvWorkers`` replaces each worker
on a node that is alive (Ray does not restart the actor itself: an episode never resumes on a fresh
desktop as if nothing happened).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from cua_bench import Backend, BackendError, Computer
from cua_core import AllowList, CuaError, KeyPair, ServerSecurity, load_or_create_keypair
from cua_core.ray_cluster import check_ray_cluster

__all__ = ["RayBackend"]

NAMESPACE = "cua-bench"
_INSTALL = "pip install './packages/cua-bench-rl[ray]' (in a clone's root), on this computer and every node"
_init_lock = threading.Lock()
log = logging.getLogger(__name__)


@dataclass(eq=False)
class _Actor:
    """One of our actors: its node, its CPU turn there, its env servers and the places promised to provisions
    still opening theirs."""

    name: str
    handle: Any
    node: str  # "" until a SPREAD actor says where it landed
    turn: int
    promised: int = 0
    envs: set[str] = field(default_factory=set)

    @property
    def taken(self) -> int:
        return self.promised + len(self.envs)


class RayBackend(Backend):
    """Computers in Ray actors: ``RayBackend("sim", address="10.0.0.5:6379")``.

    ``inner``: the backend whose env server runs in the actor (one that runs its server on the host:
    ``sim``, ``local``); ``address``: the cluster, as ``ray.init`` takes it (None: ``$RAY_ADDRESS``, else
    the cluster ``ray start`` started on this computer; never a new private one, whose resources nobody
    chose); it is connected to here, so a cluster that does not answer fails before anything starts;
    ``num_cpus`` and ``resources``: what each actor reserves (env servers mostly wait on the agent, so
    none by default); ``options``: the inner backend's ``--backend-option`` variables, set in each actor.
    Every node needs cua-bench-rl and the inner backend installed.

    An actor serves several environments, each an env server of its own, as a ``sim`` host does: Ray's cost
    per worker process (its core-worker threads, the raylet's bookkeeping) is then paid once per actor, not
    per environment. How many follows the inner backend's ``per_server`` option: set, up to K per actor
    (1: an actor each); not set, a node gets one actor per CPU Ray counts there, and the environments are
    spread over them, each actor on a CPU of its own (on one 2-CPU node, 64 workers ran 2.3x faster so than
    with an actor each: ``bench/rl.py --placement ray``). A backend without the option (``local``), or
    actors that reserve resources, get one environment per actor.
    """

    name = "ray"
    capabilities: ClassVar[dict[str, Any]] = {"remote": True}

    def __init__(
        self,
        inner: str = "sim",
        *,
        address: str | None = None,
        num_cpus: float = 0.0,
        resources: Mapping[str, float] | None = None,
        options: Mapping[str, str] | None = None,
    ) -> None:
        if not inner or not isinstance(inner, str):
            raise BackendError(f"inner backend must be a backend name such as 'sim', got {inner!r}")
        if inner in (self.name, "pool"):
            raise BackendError(f"RayBackend's inner backend cannot be {inner!r}: name the backend the actors run")
        if num_cpus < 0:
            raise BackendError(f"num_cpus must be 0 or more, got {num_cpus}")
        self.inner = inner
        self.address = address
        self.num_cpus = float(num_cpus)
        self.resources = dict(resources or {})
        self.env = {str(k): str(v) for k, v in (options or {}).items()}
        self._actors: dict[str, _Actor] = {}  # our live actors by name
        self._placing = threading.Lock()
        self.per_server = self._check_inner()
        self._ray()

    def _check_inner(self) -> int | None:
        """The inner backend serves on the host (an actor cannot reach into a VM's server for it); how many
        environments an actor serves, by the inner backend's ``per_server`` option: None where it is not set
        (one actor per CPU), 1 where the backend has none."""
        from cua_bench.backend_kit.options import check_options, resolve_options
        from cua_bench.registry import backends
        from cua_core.options import OptionError

        registry = backends()
        if self.inner not in registry:
            return 1  # installed on the nodes only: the actor's error names it if not there either
        found = registry[self.inner]
        if getattr(found.create_session, "__func__", None) is getattr(Backend.create_session, "__func__", 0):
            raise BackendError(
                f"backend {self.inner!r} runs its env server inside its own computer (a container or VM); "
                "the ray placement serves backends whose server runs on the node itself (sim, local)"
            )
        declared = {o.name: o for o in getattr(found, "options", ())}
        if "per_server" not in declared:
            return 1
        variable = declared["per_server"].env
        if not (self.env.get(variable) or os.environ.get(variable)):
            return None
        try:
            given = check_options(found, {"per_server": self.env[variable]}) if variable in self.env else {}
            per_server = int(resolve_options(found, given, ("per_server",))["per_server"])
        except OptionError as exc:
            raise BackendError(str(exc)) from exc
        if per_server < 1:
            raise BackendError(f"{self.inner}: per_server must be 1 or more, got {per_server}")
        return per_server

    # -- the Backend contract -------------------------------------------------------------------

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        ray = self._ray()
        deadline = time.monotonic() + timeout
        while True:
            actor, fresh = self._place(ray)
            try:
                info: dict[str, Any] = ray.get(
                    actor.handle.open.remote(width, height), timeout=max(0.0, deadline - time.monotonic())
                )
            except ray.exceptions.GetTimeoutError as exc:
                self._release(ray, actor, None)
                raise BackendError(
                    f"no Ray node started a {self.inner} env server in {timeout:g} s: the cluster may lack what "
                    f"each actor reserves (num_cpus={self.num_cpus:g}, resources={self.resources}) or still be "
                    "starting workers; `ray status` shows its nodes and resources"
                ) from exc
            except ray.exceptions.RayError as exc:
                died = not isinstance(exc, ray.exceptions.RayTaskError)  # else `open` raised, the actor lives
                self._release(ray, actor, None, dead=died)
                alive = {n["NodeID"] for n in ray.nodes() if n.get("Alive")}
                lost = not fresh or (actor.node and actor.node not in alive)  # not a start that fails each time
                if died and lost and time.monotonic() < deadline:
                    log.warning("env server actor %s died (%s); choosing another", actor.name, _first_line(exc))
                    continue
                raise BackendError(
                    f"the {self.inner} env server could not start in a Ray actor: {_first_line(exc)}"
                ) from exc
            with self._placing:
                actor.promised -= 1
                actor.node = str(info["node_id"])
                actor.envs.add(str(info["address"]))
            info |= {"actor": actor.name, "inner": self.inner}
            if info["node_ip"] == ray.util.get_node_ip_address():  # this host: frames through shared memory
                info["frames"] = "shm"
            return Computer(self.name, str(info["address"]), width, height, actor.handle, info)

    def _place(self, ray: Any) -> tuple[_Actor, bool]:
        """An actor with a free place, or a new one (True) where all are full; its place promised under the lock.

        Actors that reserve resources go by Ray's SPREAD, which weighs what each node has free. Zero-resource
        actors (the default) it does not spread: here it put two on one node of two, and a soft node affinity
        fell back to the head. So those go to the alive node that holds fewest of our environments, by a hard
        affinity; ``provision`` picks again if that node dies before the actor starts."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        with self._placing:
            spread = self.num_cpus > 0 or any(amount > 0 for amount in self.resources.values())
            nodes = [] if spread else [n for n in ray.nodes() if n.get("Alive")]
            if nodes:
                load = {n["NodeID"]: 0 for n in nodes}
                for actor in self._actors.values():
                    if actor.node in load:
                        load[actor.node] += actor.taken
                chosen = min(load, key=lambda node: load[node])
                cpus = next(n.get("Resources", {}).get("CPU", 1) for n in nodes if n["NodeID"] == chosen)
                found = self._free(chosen, max(1, int(cpus)))
                strategy: Any = NodeAffinitySchedulingStrategy(chosen, soft=False)
                # The lowest turn none of ours on that node holds: a replacement takes the CPU its predecessor freed.
                taken = {actor.turn for actor in self._actors.values() if actor.node == chosen}
            else:
                chosen, found, strategy = "", self._free(None, None), "SPREAD"
                taken = {actor.turn for actor in self._actors.values()}
            fresh = found is None
            if found is None:
                turn = next(t for t in range(len(taken) + 1) if t not in taken)
                name = f"cua-env-{uuid.uuid4().hex[:12]}"
                handle = (
                    _actor_class()
                    .options(
                        name=name,
                        namespace=NAMESPACE,
                        num_cpus=self.num_cpus,
                        resources=self.resources,
                        max_restarts=0,  # a lost node's desktops are replaced by EnvWorkers, never revived mid-episode
                        max_concurrency=4,  # a slow open (a local desktop's start) does not hold up its neighbours
                        scheduling_strategy=strategy,
                    )
                    .remote(self.inner, load_or_create_keypair().public.decode(), self.env, turn)
                )
                found = self._actors[name] = _Actor(name, handle, chosen, turn)
            found.promised += 1  # counted at once, so workers provisioned together spread too
            return found, fresh

    def _free(self, node: str | None, cpus: int | None) -> _Actor | None:
        """Which of our actors (on ``node``, if given) takes the next environment; None: a new one.

        ``per_server`` K: the fullest with a place left (fewest actors). Not set: a new actor while the node
        (of ``cpus`` CPUs) has fewer, then the emptiest (one per CPU, the environments spread over them);
        without a node to count (actors that reserve resources), one environment per actor."""
        mine = [a for a in self._actors.values() if node is None or a.node == node]
        if self.per_server is not None:
            return max((a for a in mine if a.taken < self.per_server), key=lambda a: a.taken, default=None)
        if cpus is None or len(mine) < cpus:
            return None
        return min(mine, key=lambda a: a.taken)

    def _release(self, ray: Any, actor: _Actor, address: str | None, *, dead: bool = False) -> None:
        """Give back a promised place (``address`` None) or a served environment; an actor left with none,
        or known ``dead``, ends (kept, it would outlive every computer torn down; a new one starts in ~1 s)."""
        with self._placing:
            if address is None:
                actor.promised -= 1
            else:
                actor.envs.discard(address)
            if not dead and actor.taken:
                return
            if self._actors.get(actor.name) is actor:
                del self._actors[actor.name]
        with contextlib.suppress(ray.exceptions.RayError):
            ray.kill(actor.handle)

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        """Close the computer's env server and its session in the actor; an actor left serving none ends."""
        ray = self._ray()
        handle = self._handle(computer)
        if handle is None:
            return
        with contextlib.suppress(ray.exceptions.RayError):
            ray.get(handle.close.remote(computer.address), timeout=timeout)
        with self._placing:
            actor = self._actors.get(str(computer.info.get("actor")))
        if actor is None:  # another process's computer, or its actor ended already
            with contextlib.suppress(ray.exceptions.RayError):
                if not ray.get(handle.serving.remote(), timeout=timeout):
                    ray.kill(handle)
            return
        self._release(ray, actor, computer.address)

    def failure(self, computer: Computer) -> str | None:
        """Why the actor behind ``computer`` is gone (its node lost, say), as Ray reports it, or why its env
        server is; None while it lives."""
        ray = self._ray()
        handle = self._handle(computer)
        where = f"ray actor {computer.info.get('actor')} on node {computer.info.get('node_ip')}"
        if handle is None:
            return f"{where} is not known to this process"
        try:
            alive = ray.get(handle.alive.remote(computer.address), timeout=10.0)
        except ray.exceptions.GetTimeoutError:
            return None  # busy or slow, not known to be dead
        except ray.exceptions.RayError as exc:
            return f"{where} died: {_first_line(exc)}"
        return None if alive else f"{where}: its env server {computer.address} was closed"

    # -- Ray ------------------------------------------------------------------------------------

    def _ray(self) -> Any:
        try:
            import ray
        except ImportError as exc:
            raise BackendError(f"the ray placement needs Ray ({exc}): {_INSTALL}") from exc
        with _init_lock:
            if not ray.is_initialized():
                try:
                    check_ray_cluster(self.address, "--placement ray:HOST:PORT (or $RAY_ADDRESS)")
                except CuaError as exc:
                    raise BackendError(str(exc)) from exc
                try:
                    ray.init(
                        address=self.address or "auto",
                        namespace=NAMESPACE,
                        log_to_driver=False,
                        include_dashboard=False,
                        configure_logging=False,
                    )
                except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
                    where = self.address or os.environ.get("RAY_ADDRESS") or "this computer"
                    raise BackendError(
                        f"no Ray cluster answers at {where} ({_first_line(exc)}): start one with `ray start --head` "
                        "and pass its address (--placement ray:HOST:PORT)"
                    ) from exc
        return ray

    def _handle(self, computer: Computer) -> Any:
        name = computer.info.get("actor")
        if not name:
            raise BackendError(
                f"computer {computer.address} has no info['actor']; it was not provisioned by RayBackend"
            )
        found = computer.handle
        if found is None:  # a copy without its handle (another process of this job): find it by name
            with contextlib.suppress(ValueError):
                found = self._ray().get_actor(str(name), namespace=NAMESPACE)
        return found


def _first_line(exc: BaseException) -> str:
    """Ray's errors run to many lines (tracebacks, advice); the last one says what happened."""
    text = str(exc).strip()
    return text.splitlines()[-1].strip() if text else type(exc).__name__


class _Only(AllowList):
    """One client key, kept in memory: the actor's server accepts the driver that started it and nobody else."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.only = {key.encode(): "the ray placement's driver"}

    def keys(self) -> dict[bytes, str]:
        return self.only


class EnvServerActor:
    """The process Ray runs for up to ``per_server`` computers: the inner backend's Sessions, each served by
    an env server of its own on this node's address (one CURVE key pair for them all, made here)."""

    def __init__(self, inner: str, allow: str, env: dict[str, str], turn: int = 0) -> None:
        import ray
        import zmq

        from cua_bench.registry import backends

        os.environ.update(env)  # the inner backend's options: this process is this actor's alone
        self.inner = inner
        found = backends()[inner]
        if "pin" in {option.name for option in getattr(found, "options", ())} and found().option("pin"):
            _pin(turn)
        self.node_ip: str = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
        self.node_id = ray.get_runtime_context().get_node_id()
        public, secret = zmq.curve_keypair()
        self.security = ServerSecurity(KeyPair(public, secret), _Only(allow))
        self.public = public.decode()
        self.servers: dict[str, tuple[Any, Any]] = {}  # address -> (EnvServer, Session)
        self._lock = threading.Lock()

    def open(self, width: int, height: int) -> dict[str, Any]:
        """A new environment, served once this returns: its server's address and what reaches it."""
        from cua_bench.registry import backends
        from cua_bench.server import EnvServer

        session = backends()[self.inner].create_session(width=width, height=height)
        host = f"[{self.node_ip}]" if ":" in self.node_ip else self.node_ip
        server = EnvServer(session, f"tcp://{host}:*", security=self.security, backend=self.inner).start()
        with self._lock:
            self.servers[server.address] = (server, session)
        return {
            "address": server.address,
            "server_key": self.public,
            "node_ip": self.node_ip,
            "node_id": self.node_id,
            "pid": os.getpid(),
        }

    def alive(self, address: str) -> bool:
        with self._lock:
            served = self.servers.get(address)
        return served is not None and not served[0].closed.is_set()

    def serving(self) -> int:
        with self._lock:
            return len(self.servers)

    def frame(self, address: str) -> Any:
        """The screen as an RGB array through Ray's object store: ``bench/rl.py --placement ray`` weighs it
        against the bus's shared memory, which rollouts use."""
        with self._lock:
            session = self.servers[address][1]
        return session.frame()

    def close(self, address: str) -> bool:
        """Close one environment's server and session; False when this actor serves none at ``address``."""
        with self._lock:
            served = self.servers.pop(address, None)
        if served is None:
            return False
        server, session = served
        server.closed.set()
        server.rpc.close()
        server.bundles.close()
        close = getattr(session, "close", None)
        done = close() if callable(close) else None
        if inspect.isawaitable(done):
            asyncio.run(done)  # type: ignore[arg-type]
        return True


def _pin(turn: int) -> None:
    """Every thread of this process on one CPU, the node's CPUs taken in turn, as the backend pins its own
    servers (``sim``: its renderer is one thread, and its threads waking one another across CPUs cost it).
    Unpinned, rollouts on 16 actors ran at 0.46x the pool's steps/s on one node; pinned, 0.93x
    (``bench/rl.py --placement ray``)."""
    if not hasattr(os, "sched_getaffinity"):  # macOS has none
        return
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[turn % len(cpus)]
    for thread in os.listdir("/proc/self/task"):  # Ray's threads too: they share the server's caches
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(int(thread), {cpu})


@cache
def _actor_class() -> Any:
    import ray

    return ray.remote(EnvServerActor)
