"""``bench/rl.py --placement ray``: rollouts with env workers here, on the pool and on Ray, in one run.

For each count of workers (16 and 64): rollout steps/s through the RolloutLoader with ``sim`` workers
placed ``here`` (and raw stepping of the same workers, the baseline), on a pool of this computer
(a controller and one host agent in this process) and on a Ray cluster (``ray start --head``) with an
actor each (``ray_each``: ``per_server=1``), each worker a process of its own; then ``here`` with
``per_server`` K (K = workers / CPUs: one sim host per CPU, ``here_hosts``) and Ray as it places by
default (``ray``: one actor per CPU, the workers spread over them). For each: the time to bring the workers up, per
worker, and the PSS of the processes that serve them (env servers or hosts here, actors on Ray), per worker.
Beside them: one frame fetched from an env server on this node through the bus's shared memory (what
rollouts use) against the same frame through Ray's object store (an actor call), the latency of each.

Ray binds its node's address, never loopback, so the measurement runs as a Ray driver inside a network
namespace made for it (the pool tests' harness: 10.213.0.1 on its own bridge), where the head node runs too.
Target: Ray within 0.9x of the pool's steps/s on one node. ``ray_vs_here_hosts`` is Ray's own cost with
K per process.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "cua_pool"))

PORT = 6381


def figures(counts: list[int], task: str, warmup: float, seconds: float) -> dict[str, float]:
    """Start the namespace and the head node, measure inside it, and take it all down."""
    from netns import SUBNET, Net  # type: ignore[import-not-found]

    root = Path(tempfile.mkdtemp(prefix="cua-bench-ray-"))
    net = Net(root, hosts=0)
    temp = Path(f"/tmp/cua-bench-ray-{net.tag}")
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    try:
        started = subprocess.run(
            ["ip", "netns", "exec", net.hub, str(Path(sys.executable).with_name("ray")), "start", "--head",
             f"--node-ip-address={SUBNET}.1", f"--port={PORT}", "--include-dashboard=false", "--disable-usage-stats",
             f"--temp-dir={temp}"],
            env=env, capture_output=True, text=True, check=False, timeout=120,
        )  # fmt: skip
        if started.returncode != 0:
            raise RuntimeError(f"ray start --head failed:\n{started.stdout}{started.stderr}")
        done = subprocess.run(
            ["ip", "netns", "exec", net.hub, sys.executable, __file__, f"{SUBNET}.1:{PORT}", task,
             ",".join(map(str, counts)), str(warmup), str(seconds), str(root)],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        sys.stderr.write(done.stderr[-3000:] if done.returncode else "")
        lines = [line for line in done.stdout.splitlines() if line.startswith("FIGURES ")]
        for line in done.stdout.splitlines():
            if not line.startswith("FIGURES "):
                print(line)
        if done.returncode != 0 or not lines:
            raise RuntimeError(f"the measurement inside the namespace exited {done.returncode}")
        found: dict[str, float] = json.loads(lines[-1].removeprefix("FIGURES "))
        return found
    finally:
        pids = subprocess.run(["ip", "netns", "pids", net.hub], capture_output=True, text=True, check=False)
        for pid in pids.stdout.split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), 9)
        net.close()
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


def _inside(address: str, task: str, counts: list[int], warmup: float, seconds: float, root: Path) -> None:
    from env import _pss_mib  # bench/env.py
    from rl import loader_steps_per_s, raw_steps_per_s  # bench/rl.py

    from cua_bench.placement import place
    from cua_bench_rl.workers import EnvWorkers
    from cua_pool.agent import HostAgent
    from cua_pool.controller import Controller

    out: dict[str, float] = {}
    controller = Controller(f"ipc://{root}/pool.sock", home=root / "controller").start()
    agent = HostAgent(controller.address, host_id="h", name="h", home=root / "agent", max_spaces=max(counts)).start()
    assert agent.wait_registered(30)
    os.environ["CUA_POOL_CONTROLLER"] = controller.address
    cpus = len(os.sched_getaffinity(0))
    try:
        for count in counts:
            hosts = -(-count // cpus)  # one sim host (or actor) per CPU, the CPUs taken in turn
            for name, where, per_server in (
                ("here", "here", 1),
                ("pool", "pool", 1),
                ("ray_each", f"ray:{address}", 1),
                ("here_hosts", "here", hosts),
                ("ray", f"ray:{address}", None),  # its default: one actor per CPU
            ):
                os.environ.pop("CUA_SIM_PER_SERVER", None)
                if per_server is not None:
                    os.environ["CUA_SIM_PER_SERVER"] = str(per_server)  # as --backend-option per_server=K sets it
                begun = time.perf_counter()
                with EnvWorkers(place("sim", where), count, start_timeout=300) as workers:
                    out[f"{name}_start_s_per_worker_{count}"] = (time.perf_counter() - begun) / count
                    if name == "here":
                        out[f"raw_steps_per_s_{count}"] = raw_steps_per_s(workers, task, warmup, seconds)
                    out[f"{name}_steps_per_s_{count}"] = loader_steps_per_s(workers, task, 4 * warmup, seconds)
                    if name != "pool":  # a pool job's server pid is the host's, not in the computer's info
                        pids = {w.computer.info.get("pid") or w.computer.handle.pid for w in workers}
                        out[f"{name}_mib_per_worker_{count}"] = sum(_pss_mib(int(p)) for p in pids) / count
                print(f"{count} workers {name}: {out[f'{name}_steps_per_s_{count}']:.1f} steps/s", flush=True)
            for name in ("ray", "ray_each"):
                out[f"{name}_vs_pool_{count}"] = out[f"{name}_steps_per_s_{count}"] / out[f"pool_steps_per_s_{count}"]
                out[f"{name}_vs_raw_{count}"] = out[f"{name}_steps_per_s_{count}"] / out[f"raw_steps_per_s_{count}"]
            out[f"ray_vs_here_hosts_{count}"] = out[f"ray_steps_per_s_{count}"] / out[f"here_hosts_steps_per_s_{count}"]
            out[f"per_server_{count}"] = hosts
        out |= _frames(address)
    finally:
        agent.close()
        controller.close()
    print("FIGURES " + json.dumps(out), flush=True)


def _frames(address: str, fetches: int = 200) -> dict[str, float]:
    """One 1280x800 frame from an actor on this node: the bus (a no-op step, frame in shared memory) against
    an actor call whose result (the array) goes through Ray's object store; p50 of each, interleaved."""
    import ray

    from cua_bench.client import EnvClient
    from cua_bench.connect import security_for
    from cua_bench.placement import place

    backend = place("sim", f"ray:{address}")
    computer = backend.provision(width=1280, height=800)
    bus, store = [], []
    try:
        with EnvClient(computer.address, security=security_for(computer), frames="shm") as env:
            _, info = env.reset(options={"task": "sim/click-button", "observes": "rgb"})
            if info.get("frames") != "shm":
                raise RuntimeError(f"the bus did not use shared memory for an actor on this node: {info}")
            ray.get(computer.handle.frame.remote(computer.address))
            for _ in range(fetches):
                t = time.perf_counter()
                obs, *_ = env.step([])
                bus.append(time.perf_counter() - t)
                assert obs["screenshot"].shape == (800, 1280, 3)
                t = time.perf_counter()
                frame = ray.get(computer.handle.frame.remote(computer.address))
                store.append(time.perf_counter() - t)
                assert frame.shape == (800, 1280, 3)
    finally:
        backend.teardown(computer)
    return {
        "frame_bus_shm_ms": statistics.median(bus) * 1000,
        "frame_object_store_ms": statistics.median(store) * 1000,
        "object_store_over_shm": statistics.median(store) / statistics.median(bus),
    }


if __name__ == "__main__":
    _address, _task, _counts, _warmup, _seconds, _root = sys.argv[1:7]
    _inside(_address, _task, [int(c) for c in _counts.split(",")], float(_warmup), float(_seconds), Path(_root))
