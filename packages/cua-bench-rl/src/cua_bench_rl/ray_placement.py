"""Env workers on a Ray cluster: a Backend whose computers are env servers inside Ray actors.

``provision`` starts one actor (on any node the cluster's scheduler picks, spread across nodes) that
builds the inner backend's Session (``sim``, ``local``) in its own process and serves it with cua-bench's
env server on tcp at its node's address, with CURVE: a key pair made fresh for that actor and only this
computer's key allowed. Rollouts then talk to the server directly, as with the pool placement; Ray only
schedules, supervises and reports deaths. Frames stay on our bus (shared memory on one host, the socket
across), not Ray's object store: ``bench/rl.py --placement ray`` measures both on one node.

The actor is owned by this process (not detached), so a driver that dies takes its env servers with it,
and a node that dies takes its actors: ``failure`` then says so, and ``EnvWorkers`` replaces the worker
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


class RayBackend(Backend):
    """Computers in Ray actors: ``RayBackend("sim", address="10.0.0.5:6379")``.

    ``inner``: the backend whose env server runs in the actor (one that runs its server on the host:
    ``sim``, ``local``); ``address``: the cluster, as ``ray.init`` takes it (None: ``$RAY_ADDRESS``, else
    the cluster ``ray start`` started on this computer; never a new private one, whose resources nobody
    chose); it is connected to here, so a cluster that does not answer fails before anything starts;
    ``num_cpus`` and ``resources``: what each actor reserves (env servers mostly wait on the agent, so
    none by default); ``options``: the inner backend's ``--backend-option`` variables, set in each actor.
    Every node needs cua-bench-rl and the inner backend installed.
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
        self._placed: dict[str, str] = {}  # our live actors' nodes: actor name -> node id
        self._turns: dict[str, tuple[str, int]] = {}  # actor name -> (node id, its CPU turn there)
        self._placing = threading.Lock()
        self._check_inner()
        self._ray()

    def _check_inner(self) -> None:
        """The inner backend serves on the host (an actor cannot reach into a VM's server for it)."""
        from cua_bench.registry import backends

        registry = backends()
        if self.inner not in registry:
            return  # installed on the nodes only: the actor's error names it if not there either
        found = registry[self.inner]
        if getattr(found.create_session, "__func__", None) is getattr(Backend.create_session, "__func__", 0):
            raise BackendError(
                f"backend {self.inner!r} runs its env server inside its own computer (a container or VM); "
                "the ray placement serves backends whose server runs on the node itself (sim, local)"
            )

    # -- the Backend contract -------------------------------------------------------------------

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        ray = self._ray()
        deadline = time.monotonic() + timeout
        while True:
            name = f"cua-env-{uuid.uuid4().hex[:12]}"
            strategy, turn = self._spread(ray, name)
            actor = (
                _actor_class()
                .options(
                    name=name,
                    namespace=NAMESPACE,
                    num_cpus=self.num_cpus,
                    resources=self.resources,
                    max_restarts=0,  # a lost node's desktop is replaced by EnvWorkers, never revived mid-episode
                    scheduling_strategy=strategy,
                )
                .remote(self.inner, width, height, load_or_create_keypair().public.decode(), self.env, turn)
            )
            try:
                info: dict[str, Any] = ray.get(actor.ready.remote(), timeout=max(0.0, deadline - time.monotonic()))
            except ray.exceptions.GetTimeoutError as exc:
                self._forget(ray, actor, name)
                raise BackendError(
                    f"no Ray node started a {self.inner} env server in {timeout:g} s: the cluster may lack what "
                    f"each actor reserves (num_cpus={self.num_cpus:g}, resources={self.resources}) or still be "
                    "starting workers; `ray status` shows its nodes and resources"
                ) from exc
            except ray.exceptions.RayError as exc:
                node = self._placed.get(name)
                self._forget(ray, actor, name)
                alive = {n["NodeID"] for n in ray.nodes() if n.get("Alive")}
                if node is not None and node not in alive and time.monotonic() < deadline:
                    log.warning("the node chosen for env server %s died before it started; choosing another", name)
                    continue
                raise BackendError(
                    f"the {self.inner} env server could not start in a Ray actor: {_first_line(exc)}"
                ) from exc
            self._placed[name] = str(info["node_id"])
            info |= {"actor": name, "inner": self.inner}
            if info["node_ip"] == ray.util.get_node_ip_address():  # this host: frames through shared memory
                info["frames"] = "shm"
            return Computer(self.name, str(info["address"]), width, height, actor, info)

    def _forget(self, ray: Any, actor: Any, name: str) -> None:
        with contextlib.suppress(ray.exceptions.RayError):
            ray.kill(actor)
        self._placed.pop(name, None)
        self._turns.pop(name, None)

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        """Close the server and its session in the actor, then end the actor (its process goes with it)."""
        ray = self._ray()
        actor = self._actor(computer)
        if actor is None:
            return
        with contextlib.suppress(ray.exceptions.RayError):
            ray.get(actor.close.remote(), timeout=timeout)
        self._forget(ray, actor, str(computer.info.get("actor")))

    def failure(self, computer: Computer) -> str | None:
        """Why the actor behind ``computer`` is gone (its node lost, say), as Ray reports it; None while it lives."""
        ray = self._ray()
        actor = self._actor(computer)
        where = f"ray actor {computer.info.get('actor')} on node {computer.info.get('node_ip')}"
        if actor is None:
            return f"{where} is not known to this process"
        try:
            alive = ray.get(actor.alive.remote(), timeout=10.0)
        except ray.exceptions.GetTimeoutError:
            return None  # busy or slow, not known to be dead
        except ray.exceptions.RayError as exc:
            return f"{where} died: {_first_line(exc)}"
        return None if alive else f"{where}: its env server was closed"

    # -- Ray ------------------------------------------------------------------------------------

    def _spread(self, ray: Any, name: str) -> tuple[Any, int]:
        """Where the actor goes, and its turn among ours there (which CPU a pinned server takes).

        Actors that reserve resources go by Ray's SPREAD, which weighs what each node has free. Zero-resource
        actors (the default) it does not spread: here it put two on one node of two, and a soft node affinity
        fell back to the head. So those go to the alive node that holds fewest of ours, by a hard affinity;
        ``provision`` picks again if that node dies before the actor starts."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        with self._placing:
            if self.num_cpus > 0 or any(amount > 0 for amount in self.resources.values()):
                self._placed[name] = ""
                return "SPREAD", len(self._placed) - 1
            nodes = [n["NodeID"] for n in ray.nodes() if n.get("Alive")]
            if not nodes:
                return "SPREAD", len(self._placed)
            load = dict.fromkeys(nodes, 0)
            for node in self._placed.values():
                if node in load:
                    load[node] += 1
            chosen = min(nodes, key=lambda node: load[node])
            self._placed[name] = chosen  # counted at once, so workers provisioned together spread too
            # The lowest turn none of ours on that node holds: a replacement takes the CPU its predecessor freed.
            taken = {turn for other, (node, turn) in self._turns.items() if node == chosen and other in self._placed}
            self._turns[name] = (chosen, next(t for t in range(len(taken) + 1) if t not in taken))
        return NodeAffinitySchedulingStrategy(chosen, soft=False), self._turns[name][1]

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

    def _actor(self, computer: Computer) -> Any:
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
    """The process Ray runs for one computer: the inner backend's Session served on this node's address."""

    def __init__(self, inner: str, width: int, height: int, allow: str, env: dict[str, str], turn: int = 0) -> None:
        import ray
        import zmq

        from cua_bench.registry import backends
        from cua_bench.server import EnvServer

        os.environ.update(env)  # the inner backend's options: this process is this actor's alone
        found = backends()[inner]
        if "pin" in {option.name for option in getattr(found, "options", ())} and found().option("pin"):
            _pin(turn)
        self.node_ip: str = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
        self.node_id = ray.get_runtime_context().get_node_id()
        public, secret = zmq.curve_keypair()
        self.session = backends()[inner].create_session(width=width, height=height)
        host = f"[{self.node_ip}]" if ":" in self.node_ip else self.node_ip
        security = ServerSecurity(KeyPair(public, secret), _Only(allow))
        self.server = EnvServer(self.session, f"tcp://{host}:*", security=security, backend=inner).start()
        self.public = public.decode()

    def ready(self) -> dict[str, Any]:
        return {
            "address": self.server.address,
            "server_key": self.public,
            "node_ip": self.node_ip,
            "node_id": self.node_id,
            "pid": os.getpid(),
        }

    def alive(self) -> bool:
        return not self.server.closed.is_set()

    def frame(self) -> Any:
        """The screen as an RGB array through Ray's object store: ``bench/rl.py --placement ray`` weighs it
        against the bus's shared memory, which rollouts use."""
        return self.session.frame()

    def close(self) -> bool:
        self.server.closed.set()
        self.server.rpc.close()
        self.server.bundles.close()
        close = getattr(self.session, "close", None)
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
