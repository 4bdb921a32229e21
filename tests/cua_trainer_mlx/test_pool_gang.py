"""The MLX example as a two-member pool gang on this computer (two host agents of an in-process
controller, ranks on loopback): a rank killed with kill -9 makes the gang restart, and training
resumes from the newest checkpoint in the pool's store with the step counter going on. (The same
on two network namespaces, and `cua run --nodes 1:2` on the local pool: tests/e2e/test_finetune_on_pool.py.)"""

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

from poolkit import Cluster, wait_for  # the pool tests' in-process controller and agents

from cua_pool.cli_jobs import pack_code

_EXAMPLE = Path(__file__).parents[2] / "examples" / "training" / "mlx_lora_finetune.py"


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    pool = Cluster(tmp_path / "cluster", heartbeat_timeout=5.0)
    try:
        for name in ("a", "b"):
            pool.add_host(name)
        yield pool
    finally:
        pool.close()


@pytest.mark.slow
def test_a_rank_killed_with_kill_9_restarts_the_gang_and_training_resumes(
    cluster: Cluster, tiny_model: Path, small_data: Path
) -> None:
    steps = 10
    # finetune(steps, grad_accumulation, model, data, micro_batch, link_delay_ms, output, adapter): the
    # emulated 300 ms link makes each step slow enough to be killed in the middle of the run.
    args = [steps, 1, str(tiny_model), str(small_data), 1, 300.0, "runs/mlx", "aguvis"]
    submitted = cluster.controller.submit(
        _EXAMPLE.name, "finetune", pack_code(_EXAMPLE), args=args, nodes_min=2, nodes_max=2, retries=1
    )
    job = str(submitted["id"])
    wait_for("rank 0's step 2", lambda: "step 2 " in cluster.logs(job, 0), timeout=120)
    found = re.search(r"rank 1 of 2, attempt 1, pid (\d+)", cluster.logs(job, 1))
    assert found, cluster.logs(job, 1)
    os.kill(int(found.group(1)), signal.SIGKILL)

    info = cluster.wait_state(job, "succeeded", "failed", timeout=180)
    assert [a["state"] for a in info["attempts"]] == ["failed", "succeeded"], cluster.logs(job, 0)[-3000:]
    result = json.loads(bytes(cluster.controller.result(job)["data"]))
    assert (result["attempt"], result["world_size"], result["steps"]) == (2, 2, steps)
    assert 2 <= result["start_step"] < steps  # resumed from the pool store's newest checkpoint
    assert len(result["losses"]) == result["exchanges"] == steps - result["start_step"]  # the counter went on
    logs = cluster.logs(job, 0)
    assert "attempt 2" in logs and f"step {steps} loss" in logs
    assert f"step {result['start_step']} loss" in logs.split("attempt 2", 1)[0]  # that step was trained before
