"""Two MLXTrainer ranks on loopback over mlx.distributed's ring backend, launched as a pool gang
launches them: MLX_RANK, MLX_WORLD_SIZE and a two-entry MLX_HOSTFILE."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cua_trainer_mlx.checkpoint import trainable_weights
from cua_trainer_mlx.trainer import MLXTrainer, join_world

from cua_bench_rl.checkpoints import FolderCheckpoints
from cua_bench_rl.world import World
from cua_core.errors import CuaError

_JOB = Path(__file__).with_name("rank_job.py")


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _rank_env(rank: int, hostfile: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK") and "CUA_POOL" not in k}
    return {**env, "MLX_RANK": str(rank), "MLX_WORLD_SIZE": "2", "MLX_HOSTFILE": str(hostfile)}


def _single(config: Any, tmp_path: Path, name: str) -> tuple[Any, dict[str, np.ndarray]]:
    trainer = MLXTrainer(config, World(), FolderCheckpoints(tmp_path / name))
    result = trainer.fit()
    return result, {n: np.array(v) for n, v in trainable_weights(trainer.model).items()}


@pytest.mark.slow
def test_two_ring_ranks_end_identical_and_exchange_once_per_step(
    tiny_model: Path, small_data: Path, make_config: Any, tmp_path: Path
) -> None:
    hostfile = tmp_path / "hostfile.json"
    hostfile.write_text(json.dumps([[f"127.0.0.1:{port}"] for port in _free_ports(2)]))
    out = tmp_path / "ranks"
    out.mkdir()
    ranks = [
        subprocess.Popen(
            [sys.executable, str(_JOB), str(tiny_model), str(small_data), str(out)],
            env=_rank_env(rank, hostfile),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for rank in (0, 1)
    ]
    try:
        logs = [rank.communicate(timeout=120)[0] for rank in ranks]
    finally:
        for rank in ranks:
            rank.kill()
    assert [rank.returncode for rank in ranks] == [0, 0], logs

    for k in (1, 2):
        results = [json.loads((out / f"k{k}-rank{r}.json").read_text()) for r in (0, 1)]
        weights = [np.load(out / f"k{k}-rank{r}.npz") for r in (0, 1)]
        assert sorted(weights[0].files) == sorted(weights[1].files)
        assert all(np.array_equal(weights[0][n], weights[1][n]) for n in weights[0].files)
        assert [r["exchanges"] for r in results] == [2, 2]  # once per optimiser step, whatever k is
        assert results[0]["losses"] == results[1]["losses"]  # every rank's loss, averaged in the exchange
        assert results[0]["tokens"] == results[1]["tokens"]
        assert results[0]["adapter"] and results[1]["adapter"] is None  # rank 0 writes the adapter

        # Two ranks of k micro-batches train on what one rank of 2k micro-batches does, to rounding.
        alone, alone_weights = _single(make_config(steps=2, micro_batch=1, grad_accumulation=2 * k), tmp_path, f"1x{k}")
        assert results[0]["losses"] == pytest.approx(alone.losses, abs=1e-5)
        assert results[0]["tokens"] == alone.tokens
        # float32 sums in another order: measured up to 2.1e-6 apart; a wrong average is ~1e-2 off.
        assert all(np.allclose(weights[0][n], alone_weights[n], atol=1e-5) for n in weights[0].files)
        assert any(np.abs(weights[0][n]).max() > 0 for n in weights[0].files if n.endswith("lora_b"))  # trained


def test_a_world_of_one_joins_no_group_and_drops_the_one_entry_hostfile(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hostfile = tmp_path / "hostfile.json"
    hostfile.write_text(json.dumps([["127.0.0.1:1"]]))  # what a pool gang of one gets; mlx's init hangs on it
    monkeypatch.setenv("MLX_HOSTFILE", str(hostfile))
    assert join_world(World(rank=0, size=1)) is None
    assert "MLX_HOSTFILE" not in os.environ


def test_a_wrong_hostfile_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MLX_HOSTFILE", raising=False)
    with pytest.raises(CuaError, match="MLX_HOSTFILE is unset"):
        join_world(World(rank=0, size=2))
    hostfile = tmp_path / "hostfile.json"
    hostfile.write_text(json.dumps([["127.0.0.1:1"], ["127.0.0.1:2"], ["127.0.0.1:3"]]))
    monkeypatch.setenv("MLX_HOSTFILE", str(hostfile))
    with pytest.raises(CuaError, match="lists 3 ranks, but the world size is 2"):
        join_world(World(rank=0, size=2))


def test_ranks_that_would_resume_from_different_steps_stop_with_an_error(
    tiny_model: Path, small_data: Path, make_config: Any, tmp_path: Path
) -> None:
    """Rank 0 finds a checkpoint at step 3 in its own folder and rank 1 none: without the check, their
    exchanges paired up wrongly (rank 0 skips steps rank 1 trains) and the ring waited forever."""
    job = Path(__file__).parents[1] / "support" / "sft_own_output.py"
    command = [sys.executable, str(job), "mlx", str(tiny_model), str(small_data), str(tmp_path), "aguvis"]
    alone = {k: v for k, v in _rank_env(0, tmp_path).items() if not k.startswith("MLX_")}
    subprocess.run(command, env=alone, check=True, capture_output=True, timeout=120)  # rank 0's own run: step 3
    hostfile = tmp_path / "hostfile.json"
    hostfile.write_text(json.dumps([[f"127.0.0.1:{port}"] for port in _free_ports(2)]))
    ranks = [
        subprocess.Popen(
            command, env=_rank_env(r, hostfile), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for r in (0, 1)
    ]
    try:
        logs = [rank.communicate(timeout=120)[0] for rank in ranks]
    finally:
        for rank in ranks:
            rank.kill()
    assert [rank.returncode for rank in ranks] == [3, 3], logs
    assert all("REFUSED mlx: the ranks would resume from different steps (rank 0: 3, rank 1: 0)" in log for log in logs)
