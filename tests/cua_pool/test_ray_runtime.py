"""`cua run FILE::FN --nodes N --on ray:ADDRESS` on a real Ray cluster: a head and two nodes, each in a
network namespace this test makes (raycluster.py), one CPU each. The local pool (controller and host
agent) runs on the head's namespace, and its agent is the Ray driver.

What it shows: a gang of two is one placement group, one rank per node, whose ranks rendezvous over
torch.distributed at the node of bundle 0; each rank's output is its own log and rank 0's return value
is the job's result; a node killed mid-run loses its rank, which restarts the gang from --max-restarts
and resumes from the job's checkpoints (saved through the agent from another node); cancel ends the
actors and the placement group.

Needs root (network namespaces); CI runs as root, so there a missing privilege is a failure.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator

import pytest
from netns import Computer, wait
from raycluster import ADDRESS, HEAD, RAY_ENV, RayCluster, kill_namespace, ray_cluster

try:
    import ray  # noqa: F401  (cua-pool's ray extra)
except ImportError:
    if os.environ.get("CI"):  # the dev extra installs it: missing under CI is a broken setup, not a skip
        raise
    pytest.skip("the ray runtime's extra: pip install './packages/cua-pool[ray]'", allow_module_level=True)

pytest.importorskip("torch")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

JOB = """
import os, time

def train(steps, pause):
    import torch
    import torch.distributed as dist
    from cua_pool import checkpoints

    store = checkpoints()
    dist.init_process_group("gloo")  # env://: MASTER_ADDR is the node of bundle 0
    rank, world = dist.get_rank(), dist.get_world_size()
    latest = store.latest()
    start = 0 if latest is None else latest + 1
    total = torch.zeros(1)
    for step in range(start, steps):
        value = torch.tensor([float(rank + 1)])
        dist.all_reduce(value)
        total += value
        print(f"rank {rank} step {step} sum {value.item()}", flush=True)
        if rank == 0:
            store.save({"step": step}, step)
        time.sleep(pause)
    dist.destroy_process_group()
    return {"world": world, "start": start, "attempt": int(os.environ["CUA_POOL_ATTEMPT"]),
            "sum": value.item(), "master": os.environ["MASTER_ADDR"]}
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayCluster]:
    with ray_cluster(tmp_path_factory.mktemp("ray-pool"), hosts=2, cpus=1) as found:
        yield found


@pytest.fixture(scope="module")
def pool(cluster: RayCluster) -> Iterator[Computer]:
    """The hub's computer: `cua run` there starts the local pool (its agent joins the cluster on first use)."""
    ctl = cluster.net.controller
    ctl.env.update(RAY_ENV)
    ctl.env.pop("RAY_ADDRESS", None)
    (ctl.root / "train.py").parent.mkdir(parents=True, exist_ok=True)
    (ctl.root / "train.py").write_text(JOB)
    try:
        yield ctl
    finally:
        ctl.cua("pool", "down", check=False)


def show(ctl: Computer, job: str) -> dict:
    return json.loads(ctl.cua("jobs", "show", job, "--json").stdout)


def submit(ctl: Computer, *args: str) -> str:
    out = ctl.cua("run", f"{ctl.root / 'train.py'}::train", *args, "--on", f"ray:{ADDRESS}", "--detach")
    return out.stdout.strip().splitlines()[-1]


def ended(ctl: Computer, job: str, timeout: float = 300) -> dict:
    try:
        wait(f"job {job} to end", lambda: show(ctl, job)["job"]["state"] in ("succeeded", "failed", "cancelled"),
             timeout=timeout)  # fmt: skip
    finally:
        print(json.dumps(show(ctl, job), indent=1)[-3000:], ctl.cua("jobs", "logs", job).stdout[-6000:], sep="\n")
    return show(ctl, job)


def nodes_of(ctl: Computer, job: str) -> dict[int, str]:
    """Each rank's node, from the line the runtime writes first in the rank's log (its latest attempt)."""
    found = {}
    for rank in (0, 1):
        lines = re.findall(r"rank \d of 2 on Ray node (\S+)", ctl.cua("jobs", "logs", job, "--rank", str(rank)).stdout)
        if lines:
            found[rank] = lines[-1]
    return found


def test_a_gang_of_two_is_one_rank_per_node_and_rank_0s_value_is_the_result(pool: Computer) -> None:
    job = submit(pool, "3", "0.1", "--nodes", "2")
    info = ended(pool, job)
    assert info["job"]["state"] == "succeeded", info["job"]["reason"]
    result = json.loads(pool.cua("jobs", "result", job).stdout)
    assert (result["world"], result["start"], result["attempt"], result["sum"]) == (2, 0, 1, 3.0)
    nodes = nodes_of(pool, job)
    assert len(set(nodes.values())) == 2, nodes  # STRICT_SPREAD: one member per node, as on the pool's hosts
    assert result["master"] == nodes[0]  # the rendezvous is where rank 0 runs, not the agent's computer
    assert "rank 1 step 2 sum 3.0" in pool.cua("jobs", "logs", job, "--rank", "1").stdout  # each rank its own log


def test_a_lost_node_restarts_the_gang_which_resumes_from_its_checkpoints(cluster: RayCluster, pool: Computer) -> None:
    steps = 60
    job = submit(pool, str(steps), "0.3", "--nodes", "2", "--max-restarts", "1")
    wait("step 4", lambda: "rank 0 step 4 " in pool.cua("jobs", "logs", job, "--rank", "0").stdout, timeout=240)
    nodes = nodes_of(pool, job)
    victim = next(ip for ip in nodes.values() if ip != HEAD)  # never the head: it holds the cluster
    host = next(h for h in cluster.net.hosts if h.address == victim)
    kill_namespace(host.ns)
    try:
        info = ended(pool, job, timeout=420)
    finally:
        cluster.join(host, 1)  # back for the tests after this one, whatever their order
    assert info["job"]["state"] == "succeeded", info["job"]["reason"]
    assert info["job"]["restarts"] == 1 and info["job"]["failures"] == 0  # the loss drew on --max-restarts
    assert "Ray declared its node" in info["attempts"][0]["reason"]  # Ray's verdict, not a guess
    result = json.loads(pool.cua("jobs", "result", job).stdout)
    assert result["attempt"] == 2 and result["world"] == 2 and 4 <= result["start"] < steps
    assert victim not in nodes_of(pool, job).values()  # the second attempt went to the nodes left


CANCELLED = """
import json, ray
ray.init(address="%s", namespace="cua-pool", log_to_driver=False)
from ray.util.placement_group import placement_group_table
groups = {v["name"]: v["state"] for v in placement_group_table().values()}
print("RESULT " + json.dumps({"groups": groups}), flush=True)
"""


def test_cancel_ends_the_ranks_and_removes_the_placement_group(cluster: RayCluster, pool: Computer) -> None:
    job = submit(pool, "600", "0.5", "--nodes", "2")
    wait("step 1", lambda: "rank 0 step 1 " in pool.cua("jobs", "logs", job, "--rank", "0").stdout, timeout=240)
    pool.cua("jobs", "cancel", job)
    info = ended(pool, job, timeout=60)
    assert info["job"]["state"] == "cancelled"
    groups = wait(
        "the placement group removed",
        lambda: (g := cluster.drive(CANCELLED % ADDRESS)["groups"]) and g.get(f"cua-{job}-1") == "REMOVED" and g,
        timeout=60,
    )
    assert groups[f"cua-{job}-1"] == "REMOVED"


def test_bad_on_values_fail_before_anything_is_submitted(pool: Computer) -> None:
    target = f"{pool.root / 'train.py'}::train"
    for args, message in (
        (["--on", "rey"], "'rey': choose pool, ray or ray:HOST:PORT"),
        (["--on", "ray:"], "nothing after the colon"),
        (["--on", "ray", "--nodes", "1:2"], "a gang on Ray has a fixed size"),
        (["--on", "ray", "--runtime", "docker"], "--runtime and --image apply to the pool's hosts"),
        (["--runtime", "ray"], "ray places whole gangs: use --on ray"),
    ):
        done = pool.cua("run", target, "1", "0", *args, check=False)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)


def test_a_gang_larger_than_the_cluster_says_what_it_waits_for_and_cancels(pool: Computer) -> None:
    job = submit(pool, "1", "0", "--nodes", "4")  # three nodes: STRICT_SPREAD cannot place four
    wait(
        "the waiting line",
        lambda: "waiting for 4 Ray nodes" in pool.cua("jobs", "logs", job, "--rank", "0").stdout,
        timeout=120,
    )
    assert "(3 alive; add nodes" in pool.cua("jobs", "logs", job, "--rank", "0").stdout
    pool.cua("jobs", "cancel", job)
    assert ended(pool, job, timeout=60)["job"]["state"] == "cancelled"  # it did not wait for a fourth node
