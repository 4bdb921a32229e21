"""Jobs outlive their client, a kill -9 of the controller and a kill -9 of the host agent."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from poolkit import JOBS, LocalPool, wait_for
from support.signals import ctrl_c

BASIC = str(JOBS / "basic.py")
TICKS = 60


def ticks_whole(text: str) -> None:
    lines = text.splitlines()
    assert lines == [f"tick {i}" for i in range(TICKS)], (
        f"log not whole: {len(lines)} lines, e.g. {lines[:3]}...{lines[-3:]}"
    )


def start_ticker(pool: LocalPool) -> str:
    job = pool.cli("run", f"{BASIC}::ticker", str(TICKS), "0.05", "--detach").output.strip().splitlines()[-1]
    wait_for("first ticks", lambda: "tick 5" in pool.cli("jobs", "logs", job, "--rank", "0").output)
    return job


def test_controller_kill_9_mid_job_loses_nothing(local_pool: LocalPool) -> None:
    job = start_ticker(local_pool)
    pid = local_pool.controller_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    wait_for("controller gone", lambda: local_pool.controller_pid() is None)
    time.sleep(0.5)
    # The next command starts it again; the job is still running where it was.
    assert local_pool.job_state(job) == "running"
    assert local_pool.controller_pid() not in (None, pid)
    wait_for("job to finish", lambda: local_pool.job_state(job) == "succeeded", timeout=30)
    ticks_whole(local_pool.cli("jobs", "logs", job, "--rank", "0").output)
    assert json.loads(local_pool.cli("jobs", "result", job).output) == TICKS


def test_agent_kill_9_mid_job_members_are_adopted(local_pool: LocalPool) -> None:
    job = start_ticker(local_pool)
    pid = local_pool.agent_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    wait_for("agent gone", lambda: local_pool.agent_pid() is None)
    time.sleep(1.0)  # the member runs on without its agent
    local_pool.cli("host", "start")
    wait_for("job to finish", lambda: local_pool.job_state(job) == "succeeded", timeout=30)
    ticks_whole(local_pool.cli("jobs", "logs", job, "--rank", "0").output)
    info = json.loads(local_pool.cli("jobs", "show", job, "--json").output)
    assert len(info["attempts"]) == 1  # the same member finished: nothing restarted


def test_follow_survives_the_client_going_away(local_pool: LocalPool) -> None:
    job = start_ticker(local_pool)
    # A client that read part of the log and left: the job does not care, and a later reader
    # continues from any offset.
    first = local_pool.cli("jobs", "logs", job, "--rank", "0").output.encode()
    first = first[: first.rstrip(b"\n").rfind(b"\n") + 1]  # its last line may have been partial: drop it
    assert first.count(b"\n") >= 5
    rest = local_pool.cli("jobs", "logs", job, "--rank", "0", "-f", "--since", str(len(first))).output.encode()
    ticks_whole((first + rest).decode())


def test_logs_follow_rides_out_a_controller_restart(local_pool: LocalPool) -> None:
    """`cua jobs logs -f` keeps following through a kill -9 and restart of the controller."""
    import threading

    job = start_ticker(local_pool)
    outputs: list[str] = []
    follower = threading.Thread(
        target=lambda: outputs.append(local_pool.cli("jobs", "logs", job, "--rank", "0", "-f").output)
    )
    follower.start()
    time.sleep(0.5)
    pid = local_pool.controller_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    from cua_pool.client import start_controller

    start_controller()
    follower.join(timeout=60)
    assert not follower.is_alive() and outputs
    ticks_whole(outputs[0])


def test_a_job_keeps_running_when_its_client_goes_away(local_pool: LocalPool, tmp_path: Path) -> None:
    import subprocess

    local_pool.cli("computers")  # the pool is up, so the client below only submits and follows
    gate = tmp_path / "gate"  # the job ticks until it exists: it cannot end before the client leaves
    client = subprocess.Popen(
        ctrl_c("cua_pool.cli", "run", f"{BASIC}::until", str(gate)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert client.stdout is not None
        first = client.stdout.readline()
        assert first.startswith("[rank 0 ") and "tick 0" in first
        client.send_signal(signal.SIGINT)  # Ctrl-C: the client leaves, the job does not
        _, err = client.communicate(timeout=60)
    finally:
        if client.poll() is None:
            client.kill()
    job = err.split("job ", 1)[1].split()[0]
    assert f"left job {job} running" in err
    assert local_pool.job_state(job) == "running"

    def logged() -> list[str]:
        return str(local_pool.cli("jobs", "logs", job, "--rank", "0").output).splitlines()

    # It goes on ticking with nobody following (on a loaded machine its next tick may take a while).
    wait_for("ticks after the client left", lambda: len(logged()) > 2, timeout=60)
    gate.touch()
    wait_for("job to finish", lambda: local_pool.job_state(job) == "succeeded", timeout=60)
    lines = logged()
    assert len(lines) > 2 and lines == [f"tick {i}" for i in range(len(lines))]  # whole, in order
