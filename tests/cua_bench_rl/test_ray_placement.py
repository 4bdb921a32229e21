"""The ray placement on a real Ray cluster: a head node and a second node, each in a network namespace
this test makes (the head at 10.213.0.1 on the hub's bridge, the second at 10.213.0.11), started with
Ray's own ``ray start``. The drivers run on the head's namespace, as a Ray driver runs on a node.

What it shows: env servers in actors on both nodes, played over tcp + CURVE; a lost node (every process
in its namespace killed) is reported from Ray's own account and its worker replaced on the head, with no
episode lost or counted twice; and a lockstep training run gives the same reward curve here, on the pool
and on Ray for the same seed.

Needs root (network namespaces); CI runs as root, so there a missing privilege is a failure.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "cua_pool"))

from raycluster import ADDRESS, HEAD, RayCluster, kill_namespace, ray_cluster  # the pool tests' Ray harness

from cua_bench.placement import place
from cua_core import CuaError

try:
    import ray  # noqa: F401  (the ray placement's extra)
except ImportError:
    if os.environ.get("CI"):  # the dev extra installs it: missing under CI is a broken setup, not a skip
        raise
    pytest.skip("the ray placement's extra: pip install './packages/cua-bench-rl[ray]'", allow_module_level=True)


def test_a_placement_is_checked_before_anything_starts() -> None:
    with pytest.raises(CuaError, match=r"unknown placement 'rey'; installed: .*ray"):
        place("sim", "rey")
    with pytest.raises(CuaError, match="nothing after the colon"):
        place("sim", "ray:")
    with pytest.raises(CuaError, match=r"'here' takes no WHERE"):
        place("sim", "here:there")
    with pytest.raises(CuaError, match="runs its env server inside its own computer"):
        place("docker", "ray:unused:1")  # refused before any cluster is asked
    with pytest.raises(CuaError, match=r"no Ray cluster answers at no-such-host\.invalid:6379"):
        place("sim", "ray:no-such-host.invalid:6379")
    from cua_bench_rl.ray_placement import RayBackend

    for bad, why in (("0", "per_server must be 1 or more, got 0"), ("many", "per_server=many: per_server must be")):
        with pytest.raises(CuaError, match=why):  # the inner backend's option, checked before any cluster is asked
            RayBackend("sim", address="no-such-host.invalid:6379", options={"CUA_SIM_PER_SERVER": bad})


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayCluster]:
    with ray_cluster(tmp_path_factory.mktemp("ray-net"), hosts=1, cpus=2) as found:
        yield found


# Two env workers spread over the two nodes play sim episodes; then the second node vanishes mid-run.
LOSS = """
import json, os, subprocess, sys, threading, time
from cua_bench.placement import place
from cua_bench.spec import EpisodeSpec
from cua_bench_rl.loader import RolloutLoader
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision
from cua_bench_rl.workers import EnvWorkers, client_for
from cua_core.actions import Click, Point

class Slow(Policy):
    def act(self, turns, *, greedy=False):
        time.sleep(0.2)  # episodes last long enough for the node to die under them
        return [Decision([Click(Point(500, 500))], [0], [0.0]) for _ in turns]
    def logprobs(self, taken):
        return []

out = {}
count = int(sys.argv[1])
if sys.argv[2]:
    os.environ["CUA_SIM_PER_SERVER"] = sys.argv[2]  # as --backend-option per_server=K sets it
backend = place("sim", "ray:%s")
with EnvWorkers(backend, count, width=640, height=400) as workers:
    out["nodes"] = sorted(w.computer.info["node_ip"] for w in workers)
    out["actors"] = len({w.computer.info["pid"] for w in workers})
    out["frames"] = {w.computer.info["node_ip"]: w.computer.info.get("frames") for w in workers}
    with client_for(workers[0].computer) as env:  # a whole episode, CURVE over tcp
        env.reset(options={"task": "sim/click-button", "variant": 2})
        out["oracle"] = env.solve()["reward"]
    specs = [EpisodeSpec("sim/click-button", i, "test", max_steps=4) for i in range(12)]
    faults = []
    loader = RolloutLoader(workers, specs, group_size=1, once=True, heartbeat_timeout=2.0,
                           on_fault=lambda i, why, what: faults.append([i, what]))
    played = []
    policy = Slow()
    with loader:
        for batch in loader.batches(max_batch=2):
            batch.respond(policy.act(batch.turns), version=0)
            played += [g.task.key for g in loader.pop_groups()]
            if len(played) >= 2 and "killed" not in out:
                for pid in subprocess.run(["ip", "netns", "pids", os.environ["VICTIM_NS"]], capture_output=True,
                                          text=True).stdout.split():
                    os.kill(int(pid), 9)
                out["killed"] = True
        played += [g.task.key for g in loader.pop_groups()]
    out["played"] = played
    out["keys"] = [s.key for s in specs]
    out["stats"] = dict(loader.stats)
    out["faults"] = faults
    out["nodes_after"] = sorted(w.computer.info["node_ip"] for w in workers)
    out["actors_after"] = len({w.computer.info["pid"] for w in workers})
print("RESULT " + json.dumps(out), flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize(("per_server", "count", "actors"), [("1", 2, 2), ("2", 4, 2), ("", 8, 4)])
def test_env_workers_on_two_ray_nodes_survive_the_loss_of_one(
    cluster: RayCluster, per_server: str, count: int, actors: int
) -> None:
    """``per_server`` 1: an actor each. 2: each actor serves two workers, and the lost node's two are replaced
    in a new actor on the head (its first one is full). Not set: one actor per CPU (two on each 2-CPU node),
    the workers spread over them, and the lost node's four replaced in the head's two."""
    try:
        out = cluster.drive(LOSS % ADDRESS, str(count), per_server)
    finally:
        kill_namespace(cluster.net.hosts[0].ns)  # whatever the driver got to
        cluster.join(cluster.net.hosts[0], 2)  # back for the tests after this one
    second = cluster.net.hosts[0].address
    assert out["nodes"] == sorted([HEAD, second] * (count // 2))  # spread: the same number on each node
    assert (out["actors"], out["actors_after"]) == (actors, 2)  # the lost node's actors gone, two on the head
    assert out["frames"] == {HEAD: "shm", second: None}  # shared memory only with the driver's own node
    assert out["oracle"] == 1.0 and out.get("killed")
    # Every episode was played and counted exactly once, the lost one again on the head.
    played, keys = out["played"], out["keys"]
    assert isinstance(played, list) and sorted(played) == sorted(keys), played
    stats = out["stats"]
    assert isinstance(stats, dict) and stats["replaced"] >= 1 and stats["dropped"] == 0 and stats["episodes"] == 12
    assert out["faults"] and all(what == "retried" for _, what in out["faults"])  # type: ignore[union-attr]
    assert out["nodes_after"] == [HEAD] * count


# A lockstep run with one env worker on a placement; its curve's rewards and losses.
TRAIN = """
import csv, json, sys
from pathlib import Path
from cua_bench_rl.config import TrainConfig
from cua_bench_rl.train import train

placement, folder = sys.argv[1], Path(sys.argv[2])
if placement == "pool":  # a pool of this namespace's own: a controller and one host agent, in this process
    import os
    from cua_pool.agent import HostAgent
    from cua_pool.controller import Controller
    controller = Controller(f"ipc://{folder.parent}/pool.sock", home=folder.parent / "controller").start()
    agent = HostAgent(controller.address, host_id="h", name="h", home=folder.parent / "agent", max_spaces=4).start()
    assert agent.wait_registered(30)
    os.environ["CUA_POOL_CONTROLLER"] = controller.address
config = TrainConfig.from_dict({
    "env": "sim:login", "policy": "a11y", "policy_options": {"explore": 0.1}, "group_size": 4,
    "groups_per_step": 2, "workers": 1, "eval_workers": 1, "eval_episodes": 3, "max_staleness": 0,
    "lockstep": True, "steps": 3, "train_variants": 6, "curriculum_start": 4, "curriculum_steps": 500,
    "seed": 5, "placement": placement, "trainer_options": {"lr": 2e-3, "entropy_coef": 0.1},
})
train(config, folder)
rows = [[r["step"], r["reward_mean"], r["loss"], r["eval_reward"]] for r in csv.DictReader(open(folder / "curve.csv"))]
print("RESULT " + json.dumps({"curve": rows}), flush=True)
"""


@pytest.mark.slow
def test_a_lockstep_run_gives_the_same_curve_here_on_the_pool_and_on_ray(cluster: RayCluster) -> None:
    curves = {}
    for placement in ("here", "pool", f"ray:{ADDRESS}"):
        folder = cluster.temp / placement.partition(":")[0]
        folder.mkdir()
        curves[placement] = cluster.drive(TRAIN, placement, str(folder / "run"))["curve"]
    here = curves.pop("here")
    assert isinstance(here, list) and len(here) == 5  # the start's evaluation, three steps, the end's
    rewards = [row[1] for row in here[1:-1]]
    assert len(set(rewards)) > 1 and any(float(r) > 0 for r in rewards)  # a curve that moves, not all zeros
    assert curves == {"pool": here, f"ray:{ADDRESS}": here}


# `local` desktops (Xvfb, openbox, the apps) in actors on both nodes, each scored by its own oracle.
LOCAL = """
import json, time
import ray
from cua_bench.placement import place
from cua_bench_rl.ray_placement import NAMESPACE
ray.init(address="%s", namespace=NAMESPACE, log_to_driver=False)
deadline = time.monotonic() + 60
while sum(n["Alive"] for n in ray.nodes()) < 2 and time.monotonic() < deadline:  # a node revived by an earlier test
    time.sleep(0.5)
from cua_bench_rl.workers import EnvWorkers, client_for
backend = place("local", "ray:%s")
out = {"rewards": []}
with EnvWorkers(backend, 2, width=800, height=600) as workers:
    out["nodes"] = sorted(w.computer.info["node_ip"] for w in workers)
    for w in workers:
        with client_for(w.computer, step_timeout=60) as env:
            env.reset(options={"task": "desktop/xterm-create-file", "variant": 0})
            out["before"] = out.get("before", []) + [env.evaluate()]  # nothing done yet: 0
            out["rewards"].append(env.solve()["reward"])
            out["xvfb"] = out.get("xvfb", []) + [env.session("run_command", command="pgrep -c Xvfb")["stdout"].strip()]
print("RESULT " + json.dumps(out), flush=True)
"""


@pytest.mark.slow
def test_local_desktops_run_in_actors_on_both_nodes(cluster: RayCluster) -> None:
    if not shutil.which("Xvfb"):
        if os.environ.get("CI"):
            raise AssertionError("Xvfb is missing under CI: scripts/system-deps.sh installs it")
        pytest.skip("the local backend needs Xvfb (scripts/system-deps.sh)")
    out = cluster.drive(LOCAL % (ADDRESS, ADDRESS))
    assert out["nodes"] == sorted([HEAD, cluster.net.hosts[0].address])
    assert out["before"] == [0.0, 0.0] and out["rewards"] == [1.0, 1.0]
    assert all(int(count) >= 1 for count in out["xvfb"])  # a real X server beside each actor's session
