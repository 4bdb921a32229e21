"""Gangs on several hosts of one in-process controller: placement, rank variables, restarts,
checkpoints and GPU exclusivity."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from poolkit import Cluster, _space_pids, wait_for

from cua_pool.gangs import never_fits


def env_lines(cluster: Cluster, job: str, ranks: int) -> list[dict[str, Any]]:
    out = []
    for rank in range(ranks):
        text = wait_for(
            f"rank {rank}'s ENV line", lambda r=rank: "ENV " in cluster.logs(job, r) and cluster.logs(job, r)
        )
        out.append(json.loads(text.split("ENV ", 1)[1].splitlines()[0]))
    return out


def test_gang_members_get_ranks_and_rendezvous_on_distinct_hosts(cluster: Cluster) -> None:
    for name in ("a", "b", "c"):
        cluster.add_host(name)
    job = cluster.submit("gang.py::show_env", nodes_min=2, nodes_max=2)
    info = cluster.wait_state(job, "succeeded")
    members = info["members"]
    assert sorted(m["rank"] for m in members) == [0, 1]
    assert len({m["host"] for m in members}) == 2  # one member per host
    envs = env_lines(cluster, job, 2)
    for rank, env in enumerate(envs):
        assert env["RANK"] == env["MLX_RANK"] == str(rank)
        assert env["WORLD_SIZE"] == env["MLX_WORLD_SIZE"] == "2" and env["LOCAL_RANK"] == "0"
        assert env["MASTER_ADDR"] == "127.0.0.1" and env["MASTER_PORT"] == envs[0]["MASTER_PORT"]
        assert len(env["hostfile"]) == 2 and all(len(entry) == 1 for entry in env["hostfile"])
        assert env["CUDA_VISIBLE_DEVICES"] == ""  # a cpu member sees no GPU


def test_gang_is_all_or_nothing_and_min_max_takes_what_is_there(cluster: Cluster) -> None:
    cluster.add_host("a")
    cluster.add_host("b")
    whole = cluster.submit("gang.py::show_env", nodes_min=3, nodes_max=3)
    flexible = cluster.submit("gang.py::show_env", nodes_min=1, nodes_max=3)
    assert cluster.wait_state(flexible, "succeeded")["attempts"][0]["world_size"] == 2
    time.sleep(0.5)
    info = cluster.job(whole)
    assert info["job"]["state"] == "pending" and info["members"] == []  # nothing placed partially
    assert "waiting for 3" in info["job"]["reason"]
    assert "a gang of 3 needs 3 hosts (one member per host) and the pool has 2 hosts" in info["job"]["reason"]
    cluster.add_host("c")
    assert cluster.wait_state(whole, "succeeded")["attempts"][0]["world_size"] == 3


def test_failed_member_stops_the_others_and_restarts_the_gang(cluster: Cluster) -> None:
    for name in ("a", "b"):
        cluster.add_host(name)
    job = cluster.submit("gang.py::fail_on_first_attempt", nodes_min=2, nodes_max=2, retries=1)
    info = cluster.wait_state(job, "succeeded", timeout=40)
    first = [m for m in info["members"] if m["attempt"] == 1]
    assert {m["rank"]: m["state"] for m in first}[1] == "exited" and {m["rank"]: m["exit_code"] for m in first}[1] == 7
    assert {m["rank"]: m["state"] for m in first}[0] in ("stopped", "failed")  # stopped long before its 30 s
    assert [a["state"] for a in info["attempts"]] == ["failed", "succeeded"]
    assert "rank 1" in info["attempts"][0]["reason"]
    assert "attempt 2" in cluster.logs(job, 0)  # the rank's log continues with the next attempt


def test_retries_run_out(cluster: Cluster) -> None:
    cluster.add_host("a")
    job = cluster.submit("gang.py::always_fail", retries=2)
    info = cluster.wait_state(job, "failed")
    assert [a["state"] for a in info["attempts"]] == ["failed"] * 3


def test_gang_restarts_after_a_host_is_lost_and_resumes_from_checkpoint(cluster: Cluster) -> None:
    for name in ("a", "b", "c"):
        cluster.add_host(name)
    job = cluster.submit("gang.py::sleeper", 60, nodes_min=2, nodes_max=2, retries=1)
    info = wait_for(
        "both running",
        lambda: (i := cluster.job(job)) and sum(m["state"] == "running" for m in i["members"]) == 2 and i,
    )
    victim = next(m["host"] for m in info["members"] if m["rank"] == 1)
    # The computer goes away: its agent stops heartbeating and its member dies with it.
    agent = cluster.agents.pop(victim)
    agent.close()
    for meta in (cluster.root / victim / "spaces").glob("*/member.json"):
        os.killpg(json.loads(meta.read_text())["handle"]["pid"], signal.SIGKILL)
    lost_at = time.monotonic()
    info = wait_for(
        "attempt 2 running",
        lambda: (
            (i := cluster.job(job))
            and sum(m["state"] == "running" and m["attempt"] == 2 for m in i["members"]) == 2
            and i
        ),
        timeout=20,
    )
    restart = time.monotonic() - lost_at
    assert restart <= cluster.controller.heartbeat_timeout + 5
    assert victim not in {m["host"] for m in info["members"] if m["attempt"] == 2}
    assert "missed heartbeats" in info["attempts"][0]["reason"]
    cluster.controller.cancel(job)
    cluster.wait_state(job, "cancelled")


def test_checkpoints_carry_a_job_across_attempts(cluster: Cluster) -> None:
    cluster.add_host("a")
    job = cluster.submit("gang.py::resumable", 6, 3, retries=1)
    cluster.wait_state(job, "succeeded")
    result = cluster.controller.result(job)
    value = json.loads(bytes(result["data"]))
    assert value["attempt"] == 2 and value["resumed_from"] == 3 and value["latest"] == 6
    assert value["total"] == sum(range(6))  # no step lost or done twice
    assert "attempt 2 resumes at step 3" in cluster.logs(job)


def test_gpu_members_never_share_gpus(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_POOL_GPUS", "0,1")  # declared, as on a host whose driver tool is elsewhere
    cluster.add_host("g", max_spaces=4)
    jobs = [cluster.submit("gang.py::show_env", 3.0, accelerator="gpu") for _ in range(3)]
    wait_for("two gpu members", lambda: sum(cluster.job(j)["job"]["state"] == "running" for j in jobs) == 2)
    running = [j for j in jobs if cluster.job(j)["job"]["state"] == "running"]
    waiting = [j for j in jobs if j not in running]
    seen = {env_lines(cluster, j, 1)[0]["CUDA_VISIBLE_DEVICES"] for j in running}
    assert seen == {"0", "1"}
    assert cluster.job(waiting[0])["job"]["state"] == "pending"  # no free GPU: it waits, never shares
    cluster.wait_state(waiting[0], "succeeded", timeout=30)
    assert env_lines(cluster, waiting[0], 1)[0]["CUDA_VISIBLE_DEVICES"] in ("0", "1")
    apple = cluster.submit("gang.py::show_env", accelerator="apple")
    time.sleep(0.5)
    assert "apple" in cluster.job(apple)["job"]["reason"]


def test_cancel_stops_every_member_of_a_gang_within_a_bound(cluster: Cluster) -> None:
    for name in ("a", "b"):
        cluster.add_host(name)
    job = cluster.submit("gang.py::sleeper", 60, nodes_min=2, nodes_max=2)
    wait_for("both running", lambda: sum(m["state"] == "running" for m in cluster.job(job)["members"]) == 2)
    pids = [pid for name in ("a", "b") for pid in _space_pids(cluster.root / name)]
    assert len(pids) == 2 and all(Path(f"/proc/{pid}").exists() for pid in pids)
    start = time.monotonic()
    cluster.controller.cancel(job)
    info = cluster.wait_state(job, "cancelled", timeout=15)
    assert time.monotonic() - start < 5  # SIGTERM, with SIGKILL 3 s later at the latest
    assert all(m["state"] in ("stopped", "failed") for m in info["members"])
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)


def test_a_job_cancelled_before_its_host_started_it_ends(cluster: Cluster) -> None:
    """Placed, then cancelled before the agent picked the member up: the member never runs, and the
    job must still end (it stayed "cancelling" for ever, holding the space, when cancelled that fast)."""
    facts = {"os_name": "Linux", "arch": "x86_64", "cpus": 1, "memory": 1 << 30, "accelerators": [], "gpus": []}
    cluster.controller.register_host(host_id="idle", name="idle", address="127.0.0.1", max_spaces=1, **facts)
    job = cluster.submit("basic.py::hello")
    assert [m["state"] for m in cluster.job(job)["members"]] == ["assigned"]
    assert cluster.controller.cancel(job)["state"] == "cancelling"
    assert cluster.controller.host_work("idle", have=[]) == {"start": [], "stop": []}
    info = cluster.job(job)
    assert info["job"]["state"] == "cancelled" and [m["state"] for m in info["members"]] == ["stopped"]
    assert [h["spaces"] for h in cluster.controller.computers()] == [0]


def test_a_rank_that_fails_because_its_peers_computer_died_is_a_lost_gang(cluster: Cluster) -> None:
    """The usual order when a computer dies mid-collective: its peer fails at once (a broken connection)
    and the loss is reported seconds later. The gang was lost: it restarts from --max-restarts, and the
    attempt names the loss, not the peer's exit."""
    facts = {"os_name": "Linux", "arch": "x86_64", "cpus": 1, "memory": 1 << 30, "accelerators": [], "gpus": []}
    for name in ("x", "y"):  # no agents: this test reports for them
        cluster.controller.register_host(host_id=name, name=name, address="127.0.0.1", max_spaces=1, **facts)
    job = cluster.submit("basic.py::hello", nodes_min=2, nodes_max=2, retries=0, max_restarts=1)
    rank = {m["rank"]: m["id"] for m in cluster.job(job)["members"]}
    cluster.controller.gangs.member_done(rank[1], "exited", 1, "exit code 1")
    assert cluster.job(job)["job"]["state"] == "failing"  # provisional: --retries 0
    cluster.controller.gangs.member_done(rank[0], "lost", None, "its computer died")
    info = cluster.job(job)
    assert info["job"]["state"] in ("pending", "running")  # restarting, not failed
    assert (info["job"]["restarts"], info["job"]["failures"]) == (1, 0)
    assert (
        info["attempts"][0]["reason"].startswith("rank 0 on host")
        and "its computer died" in info["attempts"][0]["reason"]
    )


def test_never_fits_names_what_no_known_host_has() -> None:
    def host(name: str, gpus: int = 0, apple: bool = False, state: str = "up") -> dict[str, object]:
        accel = [{"kind": "gpu"}] * gpus + ([{"kind": "apple"}] if apple else [])
        return {"name": name, "state": state, "gpus": list(range(gpus)), "accelerators": accel}

    def job(nodes: int = 1, accelerator: str = "cpu", gpus: int = 0) -> dict[str, object]:
        return {"nodes_min": nodes, "accelerator": accelerator, "gpu_count": gpus}

    pool = [host("a", gpus=2), host("b", state="lost"), host("c", gpus=8, state="removed")]
    assert never_fits(job(2), pool) is None  # a lost host may come back
    assert "the pool has 2 hosts" in str(never_fits(job(3), pool))  # a removed one will not
    assert never_fits(job(1, "gpu", 2), pool) is None
    assert "0 of the pool's 2 host(s) have 4 GPUs; ask for at most 2 with --gpus" in str(
        never_fits(job(1, "gpu", 4), pool)
    )
    assert "a gang of 2 needs 2 such hosts" in str(never_fits(job(2, "gpu", 1), pool))
    assert "add an Apple silicon host" in str(never_fits(job(1, "apple"), pool))
    assert "no hosts yet" in str(never_fits(job(1), []))
    ray = {**job(4), "runtime": "ray"}  # one host takes a whole Ray gang, whatever its size
    assert "no host of the pool takes Ray gangs" in str(never_fits(ray, pool))
    assert never_fits(ray, [*pool, {**host("r"), "gang_runtimes": ["ray"]}]) is None
