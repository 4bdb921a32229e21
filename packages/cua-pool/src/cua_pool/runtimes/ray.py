"""The ``ray`` runtime (``cua run --on ray[:ADDRESS]``): a gang runs as one Ray placement group.

Ray places, starts and watches the members; the pool keeps everything Ray lacks, exactly as for its
own hosts: the job record, per-rank logs, the result, cancel, the rank environment, the checkpoint
store and restarting the gang when a computer is lost. So one host agent takes the whole gang (it
registers ``ray`` among its ``gang_runtimes``) and is the Ray driver for it:

- the first member of an attempt makes a ``STRICT_SPREAD`` placement group, one bundle per rank (one
  member per node, as the pool puts one per host); MASTER_ADDR becomes the node of bundle 0;
- each member is an actor in its rank's bundle that unpacks the job's code on its node, runs the
  pool's runner there and streams its output back, line for line, into the member's space: the agent
  ships it as it ships any member's log, and the rank-0 result the same way;
- checkpoints go through a relay actor on the agent's node to the agent's loopback proxy, so
  ``cua_pool.checkpoints()`` works on any node and a restarted gang resumes;
- a member whose node dies is *lost* (Ray's own account says why), which restarts the gang from
  ``--max-restarts`` as a lost pool host does; the actors are the agent's, not detached, so a dead
  agent takes them with it and its successor reports them lost.

Every node needs cua-pool and the job's own packages installed (Ray ships no code here).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sys
import tarfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_core import Register, RpcClient
from cua_core.ray_cluster import check_ray_cluster
from cua_pool.hookspecs import hookimpl
from cua_pool.spaces import Handle, Space, SpaceRuntime

__all__ = ["RayRuntime"]

log = logging.getLogger(__name__)

NAMESPACE = "cua-pool"
ADDRESS_ENV = "CUA_RAY_ADDRESS"  # the job's --on ray:ADDRESS ("" or unset: this computer's cluster)
LOSS_VERDICT = 120.0  # seconds to wait for Ray to call an unanswering node dead (its default is ~30 s)
PLACE_TIMEOUT = 5.0  # seconds between "still waiting for nodes" lines in the member's log
# Paths in the member's environment that name the agent's space: on the member's node they are its own.
_SPACE_PATHS = ("HOME", "TMPDIR", "CUA_POOL_SPACE", "CUA_POOL_RESULT", "CUA_POOL_AGENT", "MLX_HOSTFILE")


@dataclass
class _Gang:
    """One attempt's placement group, shared by its members' threads."""

    world: int
    bundle: dict[str, float]
    ready: threading.Event = field(default_factory=threading.Event)
    group: Any = None
    ips: list[str] = field(default_factory=list)
    node_ids: list[str] = field(default_factory=list)
    error: str = ""
    members: int = 0


@dataclass
class _Run:
    """One member: the thread that drives its actor, and how it ended."""

    thread: threading.Thread
    actor: Any = None
    lost: str = ""
    stopping: bool = False


class RayRuntime:
    name = "ray"
    places_gangs = True  # the controller gives one host every rank of a job on this runtime

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gangs: dict[tuple[str, str], _Gang] = {}
        self._runs: dict[str, _Run] = {}
        self._address: str | None = None
        self._relay: Any = None

    # -- the SpaceRuntime protocol ------------------------------------------------------------

    def start(self, space: Space, env: dict[str, str]) -> Handle:
        ray = self._connect(env.get(ADDRESS_ENV) or "")
        key = (env["CUA_POOL_JOB"], env["CUA_POOL_ATTEMPT"])
        spec = space.read_meta()["spec"]
        bundle = {"CPU": 1.0, **({"GPU": float(spec["gpu_count"])} if spec.get("accelerator") == "gpu" else {})}
        with self._lock:
            gang = self._gangs.setdefault(key, _Gang(int(env["WORLD_SIZE"]), bundle))
            gang.members += 1
            first = gang.members == 1
        run = _Run(threading.Thread(target=self._drive, args=(ray, space, env, key, first), daemon=True))
        self._runs[space.id] = run
        run.thread.start()
        return Handle("ray", extra={"job": key[0], "attempt": key[1], "rank": env["RANK"]})

    def running(self, space: Space, handle: Handle) -> bool:
        run = self._runs.get(space.id)
        return run is not None and run.thread.is_alive()

    def exit_code(self, space: Space, handle: Handle) -> int | None:
        try:
            return int(space.exit_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def lost(self, space: Space, handle: Handle) -> str | None:
        """Why a member that ended without an exit status was lost with its computer (its node died, or
        the agent driving it restarted); None when it was not."""
        run = self._runs.get(space.id)
        if run is None:  # an agent that restarted: the actors were the old agent's, and ended with it
            return "its host agent restarted, and the Ray actors it drove ended with it"
        return run.lost or None

    def stop(self, space: Space, handle: Handle, force: bool) -> None:
        run = self._runs.get(space.id)
        if run is None or run.actor is None:
            if run is not None:
                run.stopping = True  # not placed yet: the thread gives up instead of starting it
            return
        run.stopping = True
        # Never ray.kill while it runs: an actor we killed and one whose node died end alike, and only the
        # second is a lost computer. The actor signals its process group; the driving thread kills the
        # actor once its method has ended.
        with contextlib.suppress(Exception):
            run.actor.stop.remote(force)

    # -- driving one member -------------------------------------------------------------------

    def _drive(self, ray: Any, space: Space, env: dict[str, str], key: tuple[str, str], first: bool) -> None:
        run = self._runs[space.id]
        rank = int(env["RANK"])
        with space.log.open("ab", buffering=0) as out:
            try:
                gang = self._place(ray, key, first, out, run)
                if gang.error:
                    out.write(f"cua-pool: {gang.error}\n".encode())
                    space.exit_file.write_text("126\n")
                    return
                if run.stopping:
                    return
                self._run(ray, space, env, gang, rank, run, out)
            except Exception as exc:
                lost = _lost_reason(ray, exc, run.actor, gang_node(self._gangs.get(key), rank))
                if lost is None:
                    out.write(
                        f"cua-pool: rank {rank} on Ray failed: {type(exc).__name__}: {_first_line(exc)}\n".encode()
                    )
                    space.exit_file.write_text("1\n")
                else:
                    out.write(f"cua-pool: rank {rank} was lost with its Ray node: {lost}\n".encode())
                    run.lost = lost
            finally:
                if run.actor is not None:  # an actor outlives its method: it would hold its bundle
                    with contextlib.suppress(Exception):
                        ray.kill(run.actor, no_restart=True)
                self._release(ray, key)

    def _place(self, ray: Any, key: tuple[str, str], first: bool, out: io.RawIOBase, run: _Run) -> _Gang:
        """The attempt's placement group, made by its first member; the others wait for it. A member told
        to stop while the group waits for nodes gives up (a cancel must not wait for the cluster to grow)."""
        gang = self._gangs[key]
        if not first:
            gang.ready.wait()
            return gang
        from ray.util.placement_group import placement_group, placement_group_table

        try:
            gang.group = placement_group(
                [gang.bundle] * gang.world, strategy="STRICT_SPREAD", name=f"cua-{key[0]}-{key[1]}"
            )
            said = -1
            while not gang.group.wait(PLACE_TIMEOUT):
                if run.stopping:
                    raise RuntimeError("stopped while it waited for nodes")
                alive = sum(1 for node in ray.nodes() if node.get("Alive"))
                if alive != said:  # once per change, not every few seconds for as long as it waits
                    said = alive
                    out.write(
                        f"cua-pool: waiting for {gang.world} Ray nodes with {gang.bundle} free, one per rank "
                        f"({alive} alive; add nodes with `ray start --address ...`)\n".encode()
                    )
            nodes = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes()}
            bundles = placement_group_table(gang.group)["bundles_to_node_id"]
            gang.node_ids = [bundles[i] for i in range(gang.world)]
            gang.ips = [nodes[node] for node in gang.node_ids]
        except Exception as exc:
            gang.error = f"Ray could not place a gang of {gang.world}: {type(exc).__name__}: {exc}"
        finally:
            gang.ready.set()
        return gang

    def _run(
        self, ray: Any, space: Space, env: dict[str, str], gang: _Gang, rank: int, run: _Run, out: io.RawIOBase
    ) -> None:
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        env = {**env, "MASTER_ADDR": gang.ips[0]}
        port = int(env["MASTER_PORT"])
        hostfile = [[f"{ip}:{port + 1 + r}"] for r, ip in enumerate(gang.ips)]
        strategy = PlacementGroupSchedulingStrategy(gang.group, placement_group_bundle_index=rank)
        actor_class = ray.remote(max_concurrency=2)(_RankActor)
        run.actor = actor_class.options(
            num_cpus=gang.bundle["CPU"],
            num_gpus=gang.bundle.get("GPU", 0),
            scheduling_strategy=strategy,
            max_restarts=0,
        ).remote()
        if run.stopping:  # cancelled while it was being placed
            ray.kill(run.actor, no_restart=True)
        code = _archive(space.work)
        gpu = "GPU" in gang.bundle
        for ref in run.actor.run.remote(code, env, hostfile, self._relay_for(ray), gpu):
            item = ray.get(ref)
            if isinstance(item, bytes):
                out.write(item)
                continue
            if item.get("result") is not None:
                space.result_file.write_bytes(item["result"])
            space.exit_file.write_text(f"{item['exit']}\n")

    def _release(self, ray: Any, key: tuple[str, str]) -> None:
        """The last member of an attempt to end removes its placement group."""
        with self._lock:
            gang = self._gangs[key]
            gang.members -= 1
            if gang.members > 0:
                return
            del self._gangs[key]
        if gang.group is not None:
            from ray.util.placement_group import remove_placement_group

            with contextlib.suppress(Exception):
                remove_placement_group(gang.group)

    # -- the cluster --------------------------------------------------------------------------

    def _connect(self, address: str) -> Any:
        """Join the cluster the job names (a process joins one cluster: a second is refused)."""
        import ray

        with self._lock:
            if ray.is_initialized():
                if address and address != self._address:
                    raise RuntimeError(
                        f"this host agent drives the Ray cluster at {self._address or 'this computer'}; a host "
                        f"agent serves one cluster, so --on ray:{address} needs another agent"
                    )
                return ray
            check_ray_cluster(address, "--on ray:HOST:PORT")
            ray.init(
                address=address or "auto",
                namespace=NAMESPACE,
                log_to_driver=False,
                include_dashboard=False,
                configure_logging=False,
            )
            self._address = address
            return ray

    def _relay_for(self, ray: Any) -> Any:
        with self._lock:
            if self._relay is None:
                from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

                here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
                self._relay = (
                    ray.remote(max_concurrency=8)(_Relay).options(num_cpus=0, scheduling_strategy=here).remote()
                )
            return self._relay


def _archive(folder: Path) -> bytes:
    """The job's code as the agent unpacked it, for the member's node."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder, arcname=".", filter=lambda info: None if info.name.startswith("./.tmp/") else info)
    return buffer.getvalue()


def gang_node(gang: _Gang | None, rank: int) -> str:
    """The Ray node id that holds ``rank``'s bundle ("" before the group was placed)."""
    return gang.node_ids[rank] if gang is not None and rank < len(gang.node_ids) else ""


def _lost_reason(ray: Any, exc: BaseException, actor: Any, node: str) -> str | None:
    """Why the member was lost with its node, by Ray's own account; None when it was not (another error,
    or its node is alive). An actor whose node stops answering is "unavailable" for as long as Ray takes
    to declare the node dead (~30 s by default): wait for that verdict rather than guess."""
    from ray.exceptions import ActorDiedError, ActorUnavailableError, NodeDiedError

    if not isinstance(exc, ActorDiedError | ActorUnavailableError | NodeDiedError) or not node:
        return None
    deadline = time.monotonic() + LOSS_VERDICT
    while time.monotonic() < deadline:
        alive = {n["NodeID"]: n.get("Alive", False) for n in ray.nodes()}
        if not alive.get(node, False):
            return f"Ray declared its node {node[:12]} dead ({_first_line(exc)})"
        if not isinstance(exc, ActorUnavailableError):
            return None  # the actor died on a node that lives: a crash of its own, not a lost computer
        try:
            ray.get(actor.__ray_ready__.remote(), timeout=2.0)
            return None  # it answers again: whatever broke the stream was not its computer
        except Exception as again:  # any answer but "ready" leaves the verdict to the node
            exc = again if isinstance(again, ActorDiedError) else exc
        time.sleep(0.5)
    return None


def _first_line(exc: BaseException) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()  # Ray colours its messages for a terminal
    return (text.splitlines()[0] if text else type(exc).__name__)[:300]


class _Relay:
    """On the agent's node: checkpoint calls from members on any node to the agent's loopback proxy."""

    def call(self, address: str, method: str, params: dict[str, Any]) -> Any:
        with RpcClient(address, timeout=120, heartbeat_timeout=10, retries=0) as client:
            return client.call(method, params)


class _RankActor:
    """On the member's node: the job's code in a folder of its own, run by the pool's runner."""

    def __init__(self) -> None:
        self.proc: Any = None

    def run(self, code: bytes, env: dict[str, str], hostfile: list[list[str]], relay: Any, gpu: bool) -> Iterator[Any]:
        import json
        import subprocess
        import tempfile

        import ray

        from cua_core import RpcServer
        from cua_pool import runner
        from cua_pool.agent import interface_of
        from cua_pool.spaces import unpack_code

        agent = env["CUA_POOL_AGENT"]
        with tempfile.TemporaryDirectory(prefix="cua-ray-member-") as folder:
            root = Path(folder)
            work = root / "work"
            unpack_code(code, work)
            (work / ".tmp").mkdir(exist_ok=True)
            (root / "hostfile.json").write_text(json.dumps(hostfile))
            proxy = RpcServer("tcp://127.0.0.1:0", workers=2, name="pool-ray-ckpt")
            for method in ("save", "latest", "load"):
                proxy.register(f"ckpt.{method}", _forward(relay, agent, f"ckpt.{method}"))
            proxy.start()
            (root / "agent_address").write_text(proxy.address)
            here = str(ray.util.get_node_ip_address())  # type: ignore[no-untyped-call]
            env = {
                **env,
                **dict(zip(_SPACE_PATHS, (str(work), str(work / ".tmp"), str(root), str(root / "result"),
                                          proxy.address, str(root / "hostfile.json")), strict=True)),
                "PATH": os.environ.get("PATH", env.get("PATH", "")),
            }  # fmt: skip
            if gpu:  # the devices Ray gave this actor, not the agent's host's
                env["CUDA_VISIBLE_DEVICES"] = os.environ.get("CUDA_VISIBLE_DEVICES", "")
            iface = interface_of(here)
            if iface:  # gloo and NCCL pick an interface from the host name: use the one Ray knows this node by
                env["GLOO_SOCKET_IFNAME"] = env["NCCL_SOCKET_IFNAME"] = iface
            else:
                env.pop("GLOO_SOCKET_IFNAME", None)
                env.pop("NCCL_SOCKET_IFNAME", None)
            yield f"cua-pool: rank {env['RANK']} of {env['WORLD_SIZE']} on Ray node {here}\n".encode()
            try:
                self.proc = subprocess.Popen(
                    [sys.executable, "-P", runner.__file__],
                    cwd=work,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                assert self.proc.stdout is not None
                # Not ``yield from``: Ray drives a generator method with send(), which an iterator lacks.
                for line in iter(self.proc.stdout.readline, b""):  # noqa: UP028
                    yield line
                status = self.proc.wait()
                result = root / "result"
                yield {"exit": status, "result": result.read_bytes() if result.exists() else None}
            finally:
                proxy.close()
                self.stop(force=True)

    def stop(self, force: bool = False) -> None:
        import signal

        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL if force else signal.SIGTERM)


def _forward(relay: Any, agent: str, method: str) -> Callable[..., Any]:
    def call(**params: Any) -> Any:
        import ray

        return ray.get(relay.call.remote(agent, method, params))

    return call


@hookimpl
def cua_pool_register_space_runtimes(register: Register[Callable[..., SpaceRuntime]]) -> None:
    import importlib.util

    if importlib.util.find_spec("ray") is not None:  # the `ray` extra: a host without it takes no Ray gangs
        register("ray", RayRuntime)
