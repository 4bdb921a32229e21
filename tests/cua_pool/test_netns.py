"""Several hosts on this machine, each in its own network namespace with its own address and keys.

Needs root (network namespaces); CI runs as root, so there a missing privilege is a failure.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from netns import SUBNET, Computer, Net, require_namespaces, wait

JOBS = Path(__file__).parent / "jobs"
PORT = 7070
CONTROLLER = f"tcp://{SUBNET}.1:{PORT}"

require_namespaces()


def hosts_up(ctl: Computer) -> dict[str, str]:
    rows = json.loads(ctl.cua("computers", "--json").stdout)
    return {row["name"]: row["state"] for row in rows}


def pair_and_start(net: Net, host: Computer, controller_key: str, allow: bool) -> None:
    host.cua("host", "pair", "--controller", CONTROLLER, "--controller-key", controller_key)
    if allow:
        net.controller.cua("host", "pair", "--allow", host.public_key(), "--comment", host.name)
    host.cua(
        "host",
        "setup",
        "--share",
        "spaces",
        "--max-spaces",
        "2",
        "--name",
        host.name,
        "--controller",
        CONTROLLER,
        "--controller-key",
        controller_key,
        "--no-start",
    )
    host.spawn("host", "run", log="agent.log")


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Net]:
    pool = Net(tmp_path_factory.mktemp("netns"), hosts=3)
    try:
        ctl = pool.controller
        ctl.env["CUA_POOL_CONTROLLER"] = f"ipc://{ctl.env['CUA_RUNTIME_DIR']}/pool-controller.sock"
        ctl.spawn(
            "pool",
            "serve",
            "--address",
            CONTROLLER,
            "--heartbeat-interval",
            "0.5",
            "--heartbeat-timeout",
            "3",
            log="controller.log",
        )
        wait("the controller", lambda: ctl.cua("computers", check=False).returncode == 0)
        key = ctl.cua("host", "pair").stdout.strip().splitlines()[-1].rsplit(" ", 1)[1]
        pool.controller_key = key  # type: ignore[attr-defined]
        for host in pool.hosts:
            pair_and_start(pool, host, key, allow=True)
        wait("3 hosts up", lambda: sorted(hosts_up(ctl).items()) == [("h1", "up"), ("h2", "up"), ("h3", "up")])
        yield pool
    finally:
        pool.close()


def run_detached(ctl: Computer, target: str, *args: str) -> str:
    return ctl.cua("run", target, *args, "--detach").stdout.strip().splitlines()[-1]


def show(ctl: Computer, job: str) -> dict:
    return json.loads(ctl.cua("jobs", "show", job, "--json").stdout)


def test_hosts_join_with_their_own_addresses(net: Net) -> None:
    rows = {row["name"]: row for row in json.loads(net.controller.cua("computers", "--json").stdout)}
    assert {rows[h.name]["address"] for h in net.hosts} == {h.address for h in net.hosts}


def test_unpaired_host_and_client_are_refused(net: Net) -> None:
    stranger = net.add_host(4)
    pair_and_start(net, stranger, net.controller_key, allow=False)  # type: ignore[attr-defined]
    wait("the refusal in the agent's log", lambda: "refused" in stranger.log("agent.log"), timeout=20)
    assert "h4" not in hosts_up(net.controller)
    denied = stranger.cua("run", f"{JOBS / 'basic.py'}::hello", check=False, timeout=60)
    assert denied.returncode != 0 and "refused our CURVE key" in denied.stdout + denied.stderr
    stranger.stop()


def test_two_node_ddp_gang_ends_with_identical_parameters(net: Net) -> None:
    ctl = net.controller
    job = run_detached(ctl, f"{JOBS / 'ddp.py'}::train", "6", "--nodes", "2")
    wait("the DDP job", lambda: show(ctl, job)["job"]["state"] in ("succeeded", "failed"), timeout=120)
    info = show(ctl, job)
    logs = ctl.cua("jobs", "logs", job).stdout
    assert info["job"]["state"] == "succeeded", logs
    hashes = re.findall(r"\[rank (\d) (h\d)\] PARAMS ([0-9a-f]{64}) same=True", logs)
    assert len(hashes) == 2 and hashes[0][2] == hashes[1][2] and hashes[0][1] != hashes[1][1]
    result = json.loads(ctl.cua("jobs", "result", job).stdout)
    assert result == {"same": True, "start": 0, "attempt": 1, "steps": 6, "world": 2}
    # No GLOO_SOCKET_IFNAME given: each agent set it to the interface it is known by (eth0 here).
    assert "GLOO_SOCKET_IFNAME" not in show(ctl, job)["job"]["env"]


def test_controller_kill_9_mid_gang_keeps_the_job_and_its_logs(net: Net) -> None:
    ctl = net.controller
    job = run_detached(ctl, f"{JOBS / 'basic.py'}::ticker", "200", "0.05", "--nodes", "2")
    wait("ticks", lambda: "tick 5" in ctl.cua("jobs", "logs", job, "--rank", "1").stdout)
    server = ctl.procs[0]
    os.killpg(server.pid, signal.SIGKILL)
    server.wait(timeout=10)
    time.sleep(1.0)
    ctl.procs[0] = ctl.spawn(
        "pool",
        "serve",
        "--address",
        CONTROLLER,
        "--heartbeat-interval",
        "0.5",
        "--heartbeat-timeout",
        "3",
        log="controller.log",
    )
    ctl.procs.pop()
    wait("the controller back", lambda: ctl.cua("computers", check=False).returncode == 0)
    assert show(ctl, job)["job"]["state"] == "running"
    try:
        wait("the job to finish", lambda: show(ctl, job)["job"]["state"] == "succeeded", timeout=30)
    except AssertionError:
        print(json.dumps(show(ctl, job), indent=1))
        for h in net.hosts:
            print(h.name, h.log("agent.log")[-3000:])
        print(ctl.log("controller.log")[-3000:])
        raise
    for rank in (0, 1):
        lines = ctl.cua("jobs", "logs", job, "--rank", str(rank)).stdout.splitlines()
        assert lines == [f"tick {i}" for i in range(200)]


def test_link_down_restarts_the_gang_and_resumes_from_checkpoint(net: Net) -> None:
    ctl = net.controller
    job = run_detached(
        ctl,
        f"{JOBS / 'ddp.py'}::train",
        "30",
        "0.3",
        "--nodes",
        "2",
        "--retries",
        "2",
    )
    wait("a few steps", lambda: "step 4 " in ctl.cua("jobs", "logs", job, "--rank", "0").stdout, timeout=90)
    first = show(ctl, job)
    victim_name = next(m["host_name"] for m in first["members"] if m["rank"] == 1)
    victim = next(h for h in net.hosts if h.name == victim_name)
    net.link_down(victim)
    lost_at = time.monotonic()
    wait(
        "attempt 2 running",
        lambda: any(m["attempt"] == 2 and m["state"] == "running" for m in show(ctl, job)["members"]),
        timeout=30,
    )
    restart = time.monotonic() - lost_at
    assert restart <= 3 + 5, f"gang restart took {restart:.1f} s"
    wait("the job to finish", lambda: show(ctl, job)["job"]["state"] in ("succeeded", "failed"), timeout=150)
    info = show(ctl, job)
    logs = ctl.cua("jobs", "logs", job).stdout
    assert info["job"]["state"] == "succeeded", logs
    assert victim_name not in {m["host_name"] for m in info["members"] if m["attempt"] == 2}
    result = json.loads(ctl.cua("jobs", "result", job).stdout)
    assert result["attempt"] == 2 and result["same"] is True and result["start"] >= 4
    assert re.search(rf"attempt 2 rank 0 of 2 starts at step {result['start']}", logs)
