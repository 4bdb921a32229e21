"""Cua's pool defaults: a lost computer restarts the gang without --retries (bounded by
--max-restarts, 3 by default), readable job ids (p-<fn>-<8 hex>) beside the old 10-hex ones, an
old pool.db opened by this version, and space_job's long-running jobs."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from poolkit import Cluster, LocalPool, wait_for

from cua_pool.controller import DEFAULT_MAX_RESTARTS, Controller, new_job_id
from cua_pool.paths import local_controller_address
from cua_pool.store import Store

NEW_ID = re.compile(r"p-[a-z0-9-]{1,40}-[0-9a-f]{8}")


def lose(cluster: Cluster, host: str) -> None:
    """The computer goes away: its agent stops heartbeating and its members die with it."""
    agent = cluster.agents.pop(host)
    agent.close()
    for meta in (cluster.root / host / "spaces").glob("*/member.json"):
        with contextlib.suppress(ProcessLookupError, KeyError, ValueError):
            os.killpg(json.loads(meta.read_text())["handle"]["pid"], signal.SIGKILL)


def running(cluster: Cluster, job: str, attempt: int, members: int = 1) -> dict[str, Any]:
    return wait_for(
        f"attempt {attempt} running",
        lambda: (
            (i := cluster.job(job))
            and sum(m["state"] == "running" and m["attempt"] == attempt for m in i["members"]) == members
            and i
        ),
        timeout=25,
    )


def test_a_lost_computer_restarts_the_gang_without_retries(cluster: Cluster) -> None:
    for name in ("a", "b", "c"):
        cluster.add_host(name)
    job = cluster.submit("gang.py::sleeper", 60, nodes_min=2, nodes_max=2)  # no retries, no max_restarts
    info = running(cluster, job, 1, members=2)
    assert info["job"]["retries"] == 0 and info["job"]["max_restarts"] == DEFAULT_MAX_RESTARTS == 3
    victim = next(m["host"] for m in info["members"] if m["rank"] == 1)
    lose(cluster, victim)
    info = running(cluster, job, 2, members=2)
    assert victim not in {m["host"] for m in info["members"] if m["attempt"] == 2}
    assert "missed heartbeats" in info["attempts"][0]["reason"]
    assert info["job"]["restarts"] == 1 and info["job"]["failures"] == 0  # the lost computer's budget, not --retries
    cluster.controller.cancel(job)
    cluster.wait_state(job, "cancelled")


def test_restarts_for_lost_computers_are_bounded_by_the_default(cluster: Cluster) -> None:
    hosts = ["a", "b", "c", "d", "e"]
    for name in hosts:
        cluster.add_host(name, max_spaces=1)
    job = cluster.submit("gang.py::sleeper", 60)
    for attempt in range(1, DEFAULT_MAX_RESTARTS + 2):
        info = running(cluster, job, attempt)
        lose(cluster, next(m["host"] for m in info["members"] if m["attempt"] == attempt))
    info = cluster.wait_state(job, "failed", timeout=20)
    assert [a["state"] for a in info["attempts"]] == ["failed"] * 4  # 1 + 3 restarts, then no more
    assert info["job"]["restarts"] == 3
    reason = info["job"]["reason"]
    assert "missed heartbeats" in reason and "--max-restarts 3" in reason
    assert "at most 3 times" in reason, reason


def test_max_restarts_zero_fails_at_the_first_lost_computer(cluster: Cluster) -> None:
    cluster.add_host("a")
    cluster.add_host("b")
    job = cluster.submit("gang.py::sleeper", 60, max_restarts=0, retries=2)
    info = running(cluster, job, 1)
    lose(cluster, info["members"][0]["host"])
    info = cluster.wait_state(job, "failed", timeout=20)
    assert len(info["attempts"]) == 1  # --retries is for the job's own failures: not spent here
    assert "--max-restarts 0" in info["job"]["reason"]


def test_retries_count_failures_of_the_job_itself(cluster: Cluster) -> None:
    cluster.add_host("a")
    job = cluster.submit("gang.py::always_fail")  # a lost-computer budget of 3 does not retry this
    info = cluster.wait_state(job, "failed")
    assert len(info["attempts"]) == 1 and info["job"]["restarts"] == 0
    assert "exit code 2" in info["job"]["reason"] and "--retries is 0" in info["job"]["reason"]
    job = cluster.submit("gang.py::always_fail", retries=1, max_restarts=5)
    info = cluster.wait_state(job, "failed")
    assert len(info["attempts"]) == 2 and info["job"]["failures"] == 1
    assert "--retries is 1" in info["job"]["reason"]


def test_new_job_ids_carry_the_function_name(cluster: Cluster) -> None:
    cluster.add_host("a")
    job = cluster.submit("gang.py::show_env")
    assert NEW_ID.fullmatch(job) and job.startswith("p-show-env-"), job
    assert cluster.wait_state(job, "succeeded")["job"]["id"] == job
    assert cluster.controller.show(job[:-4])["job"]["id"] == job  # a prefix still names it
    assert "ENV " in cluster.logs(job)
    assert re.fullmatch(r"p-finetune-[0-9a-f]{8}", new_job_id("finetune"))
    assert new_job_id("Trainer.Fit_Model").startswith("p-fit-model-")
    assert new_job_id("___").startswith("p-job-")
    assert new_job_id("run", "unit tests / CI").startswith("p-unit-tests-ci-")
    long = new_job_id("x" * 100)
    assert NEW_ID.fullmatch(long) and len(long) == len("p-") + 40 + 1 + 8


def _old_row(job_id: str, **extra: Any) -> dict[str, Any]:
    row = {
        "id": job_id,
        "file": "gang.py",
        "fn": "sleeper",
        "args": "[]",
        "env": "{}",
        "nodes_min": 1,
        "nodes_max": 1,
        "accelerator": "cpu",
        "gpu_count": 0,
        "retries": 2,
        "state": "succeeded",
        "attempt": 2,
        "submitted": time.time() - 60,
        "started": time.time() - 50,
        "ended": time.time() - 40,
        "result": b"[1, 2]",
        "result_format": "json",
    }
    row.update(extra)
    return row


# The jobs table as the pool wrote it before max_restarts, restarts and failures.
_OLD_JOBS = """
CREATE TABLE jobs (
  id TEXT PRIMARY KEY, file TEXT NOT NULL, fn TEXT NOT NULL, args TEXT NOT NULL, env TEXT NOT NULL,
  nodes_min INTEGER NOT NULL, nodes_max INTEGER NOT NULL, accelerator TEXT NOT NULL, gpu_count INTEGER NOT NULL,
  retries INTEGER NOT NULL, limits TEXT NOT NULL DEFAULT '{}', runtime TEXT NOT NULL DEFAULT 'process',
  state TEXT NOT NULL, attempt INTEGER NOT NULL DEFAULT 0, reason TEXT NOT NULL DEFAULT '',
  submitted REAL NOT NULL, started REAL, ended REAL, result BLOB, result_format TEXT
);
"""


def test_an_old_pool_db_opens_and_its_10_hex_ids_keep_working(tmp_path: Path) -> None:
    home = tmp_path / "controller"
    home.mkdir()
    db = sqlite3.connect(home / "pool.db")
    db.executescript(_OLD_JOBS)
    row = _old_row("0a1b2c3d4e")
    db.execute(f"INSERT INTO jobs ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})", list(row.values()))
    db.commit()
    db.close()
    store = Store(home / "pool.db")
    job = store.job("0a1b2c3d4e")
    assert job is not None
    # Its policy as submitted: lost computers get its --retries, and one retry is spent already.
    assert (job["max_restarts"], job["restarts"], job["failures"]) == (2, 0, 1)
    store.close()
    Store(home / "pool.db").close()  # a second open finds the columns and changes nothing

    controller = Controller(local_controller_address(), home=home).start()
    try:
        (home / "logs" / "0a1b2c3d4e").mkdir(parents=True)
        (home / "logs" / "0a1b2c3d4e" / "rank-0.log").write_bytes(b"old line\n")
        for name in ("0a1b2c3d4e", "0a1b2c"):  # the whole old id, and a prefix of it
            assert controller.show(name)["job"]["id"] == "0a1b2c3d4e"
            assert bytes(controller.result(name)["data"]) == b"[1, 2]"
            assert bytes(controller.read_logs(name)["ranks"]["0"]["data"]) == b"old line\n"
            assert controller.cancel(name)["state"] == "succeeded"  # ended: nothing to cancel
        with pytest.raises(ValueError, match="not a job id"):
            controller.show("../x")
        with pytest.raises(ValueError, match="not a job id"):
            controller.show("P-Finetune")
    finally:
        controller.close()


def test_old_and_new_ids_through_the_cli(local_pool: LocalPool, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "train.py").write_text("def finetune(n):\n    print('step', n, flush=True)\n    return n * 2\n")
    job = local_pool.cli("run", str(work / "train.py") + "::finetune", "21", "--detach").output.split()[0]
    assert re.fullmatch(r"p-finetune-[0-9a-f]{8}", job), job
    wait_for("the job", lambda: local_pool.job_state(job) == "succeeded")
    assert local_pool.cli("jobs", "result", job).output.strip() == "42"
    assert "step 21" in local_pool.cli("jobs", "logs", job).output
    assert job in local_pool.cli("jobs").output
    shown = local_pool.cli("jobs", "show", job).output
    assert "restarts 0/3 for lost computers" in shown and "retries 0/0" in shown
    # An old-format row (a pool upgraded in place) is shown, logged, cancelled and read the same way.
    from cua_pool.paths import controller_home

    home = controller_home()
    db = sqlite3.connect(home / "pool.db")
    row = _old_row("fedcba9876", state="running", attempt=1, ended=None, result=None, result_format=None)
    db.execute(f"INSERT INTO jobs ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})", list(row.values()))
    db.commit()
    db.close()
    assert "fedcba9876" in local_pool.cli("jobs", "show", "fedcba98").output
    assert "fedcba9876: cancelled" in local_pool.cli("jobs", "cancel", "fedcba9876").output
    assert "was cancelled" in local_pool.cli("jobs", "result", "fedcba9876", ok=False).output


def test_space_job_outlives_its_client_and_cancel_stops_it(local_pool: LocalPool, tmp_path: Path) -> None:
    import cua_pool

    work = tmp_path / "app"
    work.mkdir()
    (work / "data.txt").write_text("payload\n")
    command = "cat data.txt; i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.2; done"
    # The client is its own process, and it is gone before the job has done much.
    client = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, cua_pool; "
            "print(json.dumps(cua_pool.space_job('start', name='ticker job', command=sys.argv[1], cwd=sys.argv[2])))",
            command,
            str(work),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    started = json.loads(client.stdout.strip().splitlines()[-1])
    job = started["job"]
    assert re.fullmatch(r"p-ticker-job-[0-9a-f]{8}", job) and started["state"] in ("pending", "running")
    first = wait_for("ticks", lambda: (r := cua_pool.space_job("logs", job=job)) and "tick 2" in r["data"] and r)
    assert first["data"].startswith("payload\n")  # cwd was shipped and the command ran in it
    more = wait_for(
        "the log to grow",
        lambda: (r := cua_pool.space_job("logs", job=job, offset=first["offset"])) and "tick" in r["data"] and r,
    )
    assert more["offset"] > first["offset"] and "payload" not in more["data"]  # read from the offset
    status = cua_pool.space_job("status", job=job)
    assert status["state"] == "running" and status["name"] == "ticker job" and status["exit"] is None
    assert job in [j["job"] for j in cua_pool.space_job("list")]
    assert "tick" in local_pool.cli("jobs", "logs", job, "--rank", "0").output  # the pool's own view
    assert cua_pool.space_job("cancel", job=job)["was"] == "running"
    wait_for("cancelled", lambda: cua_pool.space_job("status", job=job)["state"] == "cancelled")
    end = cua_pool.space_job("logs", job=job)["offset"]
    time.sleep(1.0)
    assert cua_pool.space_job("logs", job=job)["offset"] == end  # stopped: nothing more is written


def test_space_job_exit_status_and_refusals(local_pool: LocalPool) -> None:
    import cua_pool

    job = cua_pool.space_job("start", command="echo done; exit 3")["job"]
    assert job.startswith("p-echo-")
    status = wait_for("the end", lambda: (s := cua_pool.space_job("status", job=job))["state"] == "failed" and s)
    assert status["exit"] == 3 and status["attempt"] == 1  # no restarts unless asked
    assert "done" in cua_pool.space_job("logs", job=job)["data"]
    with pytest.raises(ValueError, match="notify needs a Space thread"):
        cua_pool.space_job("start", command="true", notify=True)
    with pytest.raises(ValueError, match="this pool runs space jobs on its own hosts"):
        cua_pool.space_job("start", command="true", space="cloud:dev")
    with pytest.raises(ValueError, match="needs job=ID"):
        cua_pool.space_job("logs")
    with pytest.raises(ValueError, match="one of start, status, logs, cancel, list"):
        cua_pool.space_job("wait", job=job)
