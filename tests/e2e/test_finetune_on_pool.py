"""The fine-tuning examples on a pool: `cua run examples/training/<example>.py::finetune --nodes 1:2` on the
local pool (a gang of one) and on two computers in their own network namespaces (a gang of two), and a
rank killed with kill -9 mid-run: the gang restarts and training resumes from the newest checkpoint.

Needs root (network namespaces); CI runs as root, so there a missing privilege is a failure.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "cua_pool"))

from netns import SUBNET, Computer, Net, require_namespaces, wait  # the pool tests' namespace harness

pytest.importorskip("torch")

EXAMPLES = Path(__file__).parents[2] / "examples" / "training"
PORT = 7072
CONTROLLER = f"tcp://{SUBNET}.1:{PORT}"

require_namespaces()

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Net]:
    """Two computers sharing spaces with the pool, one core each (so two ranks have twice one's compute)."""
    pool = Net(tmp_path_factory.mktemp("netns-finetune"), hosts=2)
    try:
        ctl = pool.controller
        ctl.env["CUA_POOL_CONTROLLER"] = f"ipc://{ctl.env['CUA_RUNTIME_DIR']}/pool-controller.sock"
        ctl.spawn(
            "pool", "serve", "--address", CONTROLLER, "--heartbeat-interval", "0.5", "--heartbeat-timeout", "5",
            log="controller.log",
        )  # fmt: skip
        wait("the controller", lambda: ctl.cua("computers", check=False).returncode == 0)
        key = ctl.cua("host", "pair").stdout.strip().splitlines()[-1].rsplit(" ", 1)[1]
        for host in pool.hosts:
            host.cua("host", "pair", "--controller", CONTROLLER, "--controller-key", key)
            ctl.cua("host", "pair", "--allow", host.public_key(), "--comment", host.name)
            host.cua(
                "host", "setup", "--share", "spaces", "--name", host.name, "--controller", CONTROLLER,
                "--controller-key", key, "--no-start",
            )  # fmt: skip
            host.spawn("host", "run", log="agent.log")
        wait("2 hosts up", lambda: json.loads(ctl.cua("computers", "--json").stdout).__len__() == 2, timeout=30)
        yield pool
    finally:
        pool.close()


def show(ctl: Computer, job: str) -> dict:
    return json.loads(ctl.cua("jobs", "show", job, "--json").stdout)


def finished(ctl: Computer, job: str, timeout: float) -> dict:
    try:
        wait(f"job {job} to end", lambda: show(ctl, job)["job"]["state"] in ("succeeded", "failed"), timeout=timeout)
    finally:
        info = show(ctl, job)
        logs = ctl.cua("jobs", "logs", job).stdout
        print(json.dumps(info, indent=1)[-3000:], logs[-6000:], sep="\n")
    assert info["job"]["state"] == "succeeded", logs[-4000:]
    return json.loads(ctl.cua("jobs", "result", job).stdout)


# mlx's Linux CPU build is slow at long attention: its run takes aguvis's short prompts (~330 tokens).
ADAPTER = {"ddp_finetune": "qwen2.5-vl", "mlx_lora_finetune": "aguvis"}


@pytest.mark.parametrize("example", ["ddp_finetune", "mlx_lora_finetune"])
def test_two_computers_train_one_model(net: Net, example: str) -> None:
    ctl = net.controller
    target = f"{EXAMPLES / example}.py::finetune"
    args = ["4", "2", "null", "null", "2", "0", "runs/out", ADAPTER[example]]
    job = ctl.cua("run", target, *args, "--nodes", "1:2", "--detach").stdout.strip().splitlines()[-1]
    result = finished(ctl, job, timeout=420)
    assert (result["world_size"], result["start_step"], result["steps"], result["attempt"]) == (2, 0, 4, 1)
    assert result["exchanges"] == 4  # 2 micro-batches per step, gradients crossed once per step
    assert result["losses"][-1] < result["losses"][0]
    hosts = {m["host_name"] for m in show(ctl, job)["members"]}
    assert hosts == {"h1", "h2"}


def test_a_rank_killed_with_kill_9_restarts_the_gang_and_training_resumes(net: Net) -> None:
    """(The mlx trainer's own tests kill a rank of a two-member gang the same way: test_pool_gang.py.)"""
    ctl = net.controller
    target = f"{EXAMPLES / 'ddp_finetune'}.py::finetune"
    steps = 14
    job = ctl.cua("run", target, str(steps), "--nodes", "2", "--retries", "2", "--detach").stdout.strip()
    job = job.splitlines()[-1]
    wait("step 3", lambda: "step 3 " in ctl.cua("jobs", "logs", job, "--rank", "0").stdout, timeout=300)
    # Each rank's log reaches the controller on its own: rank 0 at step 3 does not mean rank 1's first
    # line has arrived (a CI run read it too early).
    started = wait(
        "rank 1's first line",
        lambda: re.search(r"rank 1 of 2, attempt 1, pid (\d+)", ctl.cua("jobs", "logs", job, "--rank", "1").stdout),
        timeout=120,
    )
    pid = int(started.group(1))
    os.kill(pid, signal.SIGKILL)
    result = finished(ctl, job, timeout=420)
    assert result["attempt"] == 2 and result["world_size"] == 2
    assert 3 <= result["start_step"] < steps and result["steps"] == steps  # the step counter went on
    assert len(result["losses"]) == steps - result["start_step"]
    logs = ctl.cua("jobs", "logs", job, "--rank", "0").stdout
    assert "attempt 2" in logs and f"step {steps} " in logs


def test_on_the_local_pool_a_gang_of_one(local_pool: None) -> None:
    """`--nodes 1:2` on one computer places one member: both trainers must run at world size 1
    (mlx.distributed hangs on a one-entry hostfile, which the pool writes for a gang of one)."""
    from click.testing import CliRunner

    from cua_pool.cli import main

    runner = CliRunner()
    for example in ("ddp_finetune", "mlx_lora_finetune"):
        args = ["2", "1", "null", "null", "2", "0", "runs/out", ADAPTER[example]]
        done = runner.invoke(main, ["run", f"{EXAMPLES / example}.py::finetune", *args, "--nodes", "1:2", "--detach"])
        assert done.exit_code == 0, done.output
        job = done.output.strip().splitlines()[-1]
        wait(
            f"{example} on the local pool",
            lambda job=job: (
                json.loads(runner.invoke(main, ["jobs", "show", job, "--json"]).output)["job"]["state"]
                in ("succeeded", "failed")
            ),
            timeout=180,
        )
        result = runner.invoke(main, ["jobs", "result", job])
        logs = runner.invoke(main, ["jobs", "logs", job]).output
        assert result.exit_code == 0, logs[-3000:]
        summary = json.loads(result.output)
        assert (summary["world_size"], summary["steps"], summary["exchanges"]) == (1, 2, 0), summary


def test_sft_nodes_runs_through_cua_run_on_the_pool(local_pool: None, tmp_path: Path) -> None:
    """`cua-bench-rl sft --nodes 1` ships the job file to the pool (`cua run`), streams its log and
    exits with the job's status; the checkpoints are the pool's, the trained model where --output says."""
    import subprocess

    from cua_bench_rl.sft import oracle_dataset
    from cua_data.tiny_models import build_tiny_qwen25_vl

    model = build_tiny_qwen25_vl(tmp_path / "model")
    data = oracle_dataset(tmp_path / "oracle", tasks=("click-button",), variants=2)
    command = [sys.executable, "-m", "cua_bench_rl.cli", "sft", "--data", str(data), "--model", str(model)]
    command += ["--trainer", "ddp", "--steps", "3", "--output", str(tmp_path / "out"), "--nodes", "1"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "step 3 loss" in done.stdout and "succeeded" in done.stderr
    assert (tmp_path / "out" / "model" / "adapter_config.json").is_file()
    assert not (tmp_path / "out" / "checkpoints").exists()  # inside a pool job they go to the pool's store
