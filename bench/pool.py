"""The pool's latencies and throughput, measured on a private local pool started for this run.

- submit-to-running: from ``job.submit`` returning to the controller recording the member as
  running (the host agent started its process), p50 over N jobs. Baseline in the same run: the
  time to spawn a bare ``python -c pass`` process and wait for it, the floor of starting anything.
- log latency: a job prints ``time.time()`` every 50 ms; a follower reading like
  ``cua jobs logs -f`` (long-polling ``job.logs``) computes arrival minus print time per line, p50.
- gang restart: a 2-node gang on 3 hosts (in-process agents, heartbeat timeout 2 s); one host
  vanishes (its agent stops and its member is killed); seconds until attempt 2 has both members
  running. Target: heartbeat timeout + 5 s.
- jobs/s: N trivial jobs submitted back to back, divided by the time until all succeeded.

The last line is ``submit_to_running_ms=… log_latency_ms=… gang_restart_s=… jobs_per_s=…``.

Run: .venv/bin/python bench/pool.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

JOB = """
import time

def noop():
    return 1

def stamps(count=40, every=0.05):
    for _ in range(count):
        print(f"T {time.time():.6f}", flush=True)
        time.sleep(every)

def sleeper(seconds=60):
    time.sleep(seconds)
"""


def _wait(check: Any, timeout: float, every: float = 0.002) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError("the pool did not get there in time")
        time.sleep(every)


def _submit(client: Any, code: bytes, fn: str, *args: Any, **options: Any) -> str:
    reply = client.call("job.submit", {"file": "benchjob.py", "fn": fn, "code": code, "args": list(args), **options})
    return str(reply["id"])


def _state(client: Any, job: str) -> dict[str, Any]:
    info: dict[str, Any] = client.call("job.show", {"job": job})
    return info


def submit_to_running(client: Any, code: bytes, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        job = _submit(client, code, "sleeper", 30)
        _wait(lambda j=job: any(m["state"] == "running" for m in _state(client, j)["members"]), 20)
        out.append(time.perf_counter() - start)
        client.call("job.cancel", {"job": job})
        _wait(lambda j=job: _state(client, j)["job"]["state"] == "cancelled", 20, 0.01)
    return out


def log_latency(client: Any, code: bytes, lines: int) -> list[float]:
    job = _submit(client, code, "stamps", lines, 0.05)
    offsets: dict[str, int] = {}
    partial = b""
    out: list[float] = []
    while True:
        reply = client.call("job.logs", {"job": job, "offsets": offsets, "wait": 2.0}, timeout=30)
        now = time.time()
        part = reply["ranks"].get("0")
        if part is not None:
            offsets["0"] = part["offset"]
            partial += bytes(part["data"])
            *done, partial = partial.split(b"\n")
            out.extend(now - float(line.split()[1]) for line in done if line.startswith(b"T "))
        if reply["state"] in ("succeeded", "failed", "cancelled") and not (part and part["data"]):
            return out


def jobs_per_second(client: Any, code: bytes, n: int) -> float:
    start = time.perf_counter()
    jobs = [_submit(client, code, "noop") for _ in range(n)]
    for job in jobs:
        _wait(lambda j=job: _state(client, j)["job"]["state"] == "succeeded", 120, 0.01)
    return n / (time.perf_counter() - start)


def gang_restart(root: Path, code_dir: Path) -> tuple[float, float]:
    from cua_pool.agent import HostAgent
    from cua_pool.cli_jobs import pack_code
    from cua_pool.controller import Controller

    ctl = Controller(f"ipc://{root}/g.sock", home=root / "gctl", heartbeat_interval=0.5, heartbeat_timeout=2.0).start()
    agents = {}
    try:
        for name in ("a", "b", "c"):
            agents[name] = HostAgent(ctl.address, host_id=name, name=name, home=root / name, max_spaces=1).start()
            agents[name].wait_registered(10)
        job = ctl.submit(
            "benchjob.py",
            "sleeper",
            pack_code(code_dir / "benchjob.py"),
            args=[60],
            nodes_min=2,
            nodes_max=2,
            retries=1,
        )["id"]
        info = _wait(lambda: (i := ctl.show(job)) and sum(m["state"] == "running" for m in i["members"]) == 2 and i, 30)
        victim = next(m["host"] for m in info["members"] if m["rank"] == 1)
        agents.pop(victim).close()
        for meta in (root / victim / "spaces").glob("*/member.json"):
            os.killpg(json.loads(meta.read_text())["handle"]["pid"], signal.SIGKILL)
        lost = time.perf_counter()
        _wait(lambda: sum(m["attempt"] == 2 and m["state"] == "running" for m in ctl.show(job)["members"]) == 2, 30)
        restart = time.perf_counter() - lost
        ctl.cancel(job)
        _wait(lambda: ctl.show(job)["job"]["state"] == "cancelled", 20, 0.01)
        return restart, ctl.heartbeat_timeout
    finally:
        for agent in agents.values():
            agent.close()
        for name in ("a", "b", "c"):
            for meta in (root / name / "spaces").glob("*/member.json"):
                with contextlib.suppress(OSError, ValueError, ProcessLookupError):
                    os.killpg(json.loads(meta.read_text())["handle"]["pid"], signal.SIGKILL)
        ctl.close()


def spawn_baseline(n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        out.append(time.perf_counter() - start)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Fewer samples.")
    quick = parser.parse_args().quick
    n_submit, n_lines, n_jobs = (8, 20, 10) if quick else (20, 60, 40)

    root = Path(tempfile.mkdtemp(prefix="cua-bench-pool-"))
    os.environ["CUA_CONFIG_DIR"] = str(root / "config")
    os.environ["CUA_RUNTIME_DIR"] = str(root / "rt")
    (root / "job").mkdir()
    (root / "job" / "benchjob.py").write_text(JOB)

    from cua_pool.cli_jobs import pack_code
    from cua_pool.client import connect, stop_local_pool

    code = pack_code(root / "job" / "benchjob.py")
    try:
        with connect("local", None) as client:
            client.call("pool.computers")  # started, joined
            submit_s = submit_to_running(client, code, n_submit)
            latency_s = log_latency(client, code, n_lines)
            jobs_s = jobs_per_second(client, code, n_jobs)
        restart_s, hb_timeout = gang_restart(root, root / "job")
        base_s = spawn_baseline(n_submit)
    finally:
        stop_local_pool()

    submit_ms = statistics.median(submit_s) * 1000
    base_ms = statistics.median(base_s) * 1000
    latency_ms = statistics.median(latency_s) * 1000
    print(f"machine: {os.cpu_count()} cpus, Python {sys.version.split()[0]}")
    print(
        f"submit-to-running p50 {submit_ms:.1f} ms (max {max(submit_s) * 1000:.1f}) over {n_submit} jobs; "
        f"bare `python -c pass` spawn p50 {base_ms:.1f} ms (ratio {submit_ms / base_ms:.2f}); target <= 300 ms"
    )
    print(
        f"log line print -> follower p50 {latency_ms:.1f} ms (p90 "
        f"{statistics.quantiles(latency_s, n=10)[-1] * 1000:.1f}) over {len(latency_s)} lines; target <= 100 ms"
    )
    print(
        f"gang restart after a host loss: {restart_s:.2f} s with a {hb_timeout:g} s heartbeat timeout "
        f"(target <= {hb_timeout + 5:g} s)"
    )
    print(f"jobs submitted and completed: {jobs_s:.1f}/s over {n_jobs} jobs")
    print(
        f"submit_to_running_ms={submit_ms:.1f} log_latency_ms={latency_ms:.1f} gang_restart_s={restart_s:.2f} "
        f"jobs_per_s={jobs_s:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
