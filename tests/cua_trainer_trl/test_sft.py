"""The ``trl`` SFT trainer on the tiny Qwen2.5-VL and sim oracle data: loss, LoRA, resume, errors."""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from cua_trainer_trl.sft import TRLSFTTrainer, ordered_rows
from safetensors.torch import load_file

from cua_bench_rl.checkpoints import FolderCheckpoints
from cua_bench_rl.registry import sft_trainers
from cua_bench_rl.sft import SFTConfig, SFTResult, SFTStep, load_examples, micro_batches, preflight, run_sft
from cua_bench_rl.world import World
from cua_core.errors import CuaError
from cua_data.adapters.sft import collate, load_processor


def config(data: Path, model: Path, output: Path, **changes: object) -> SFTConfig:
    settings: dict[str, object] = {
        "data": str(data), "model": str(model), "trainer": "trl", "output": str(output), "steps": 3, "lr": 1e-2,
        "micro_batch": 2, "checkpoint_every": 2, "threads": 2,
    }  # fmt: skip
    return SFTConfig(**{**settings, **changes})  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def trained(
    tiny_vl: Path, one_trajectory: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[SFTResult, list[SFTStep], Path]:
    output = tmp_path_factory.mktemp("trl-sft")
    steps: list[SFTStep] = []
    result = run_sft(config(one_trajectory, tiny_vl, output), steps.append)
    return result, steps, output


def test_trl_is_registered_as_an_sft_trainer() -> None:
    assert sft_trainers()["trl"] is TRLSFTTrainer


@pytest.mark.slow
def test_loss_falls_on_a_fixed_batch_and_lora_moves(trained: tuple[SFTResult, list[SFTStep], Path]) -> None:
    result, steps, output = trained
    print(f"\nlosses {result.losses}; {result.tokens} tokens in {result.seconds:.1f} s ({result.tokens_per_s:.0f}/s)")
    assert len(result.losses) == 3 and all(math.isfinite(v) for v in result.losses)
    assert all(b < a for a, b in zip(result.losses, result.losses[1:], strict=False))  # the same batch every step
    assert (result.start_step, result.steps, result.world_size, result.exchanges) == (0, 3, 1, 0)
    assert [s.step for s in steps] == [1, 2, 3] and [s.loss for s in steps] == result.losses
    assert result.tokens == sum(s.tokens for s in steps) > 0
    adapter = load_file(str(Path(result.adapter or "") / "adapter_model.safetensors"))
    lora_b = [v for k, v in adapter.items() if "lora_B" in k]
    assert lora_b and any(float(v.abs().max()) > 0 for v in lora_b)  # peft starts B at zero: training moved it
    from cua_data.model_folder import PromptSettings, read_settings

    assert read_settings(result.adapter or "") == PromptSettings("qwen2.5-vl", "last=2")  # what the hf agent uses
    store = FolderCheckpoints(output / "checkpoints")
    assert store.latest() == 3 and store.load(1) is None
    state = store.load(2)
    assert state["step"] == 2 and state["trainable"] and all("lora_" in k for k in state["trainable"])


@pytest.mark.slow
def test_resume_continues_the_step_counter(
    trained: tuple[SFTResult, list[SFTStep], Path], tiny_vl: Path, one_trajectory: Path, tmp_path: Path
) -> None:
    first, _, output = trained
    shutil.copytree(output / "checkpoints", tmp_path / "checkpoints")
    steps: list[SFTStep] = []
    result = run_sft(config(one_trajectory, tiny_vl, tmp_path, steps=5), steps.append)
    assert (result.start_step, result.steps) == (3, 5) and [s.step for s in steps] == [4, 5]
    assert len(result.losses) == 2
    # The weights and optimizer came back: training goes on from step 3's loss, not from the untrained one.
    assert result.losses[0] < first.losses[0] and result.losses[0] <= first.losses[-1] + 1e-3
    assert FolderCheckpoints(tmp_path / "checkpoints").latest() == 5


def test_rows_follow_the_contracts_micro_batches(one_trajectory: Path, tiny_vl: Path, tmp_path: Path) -> None:
    cfg = config(one_trajectory, tiny_vl, tmp_path, micro_batch=2, grad_accumulation=2, steps=3)
    world = World(rank=0, size=2)
    rows = ordered_rows(5, cfg, world, start=1)
    batches = [rows[i : i + 2] for i in range(0, len(rows), 2)]
    # accelerate deals batch j to rank j % 2: each rank must get its contract micro-batches, step after step.
    for rank in (0, 1):
        mine = batches[rank::2]
        expected = [mb for step in (1, 2) for mb in micro_batches(5, cfg, World(rank=rank, size=2), step)]
        assert mine == expected


def test_bad_model_path_is_refused_before_training(one_trajectory: Path, tmp_path: Path) -> None:
    with pytest.raises(CuaError, match="not a checkpoint folder"):
        preflight(config(one_trajectory, tmp_path / "nowhere", tmp_path))


def test_trl_settings_the_sft_flags_own_are_refused(one_trajectory: Path, tiny_vl: Path, tmp_path: Path) -> None:
    examples = load_examples(config(one_trajectory, tiny_vl, tmp_path))
    assert len(examples) == 2
    cfg = config(one_trajectory, tiny_vl, tmp_path, options={"learning_rate": 1.0})
    with pytest.raises(CuaError, match="learning_rate are set by the sft settings"):
        run_sft(cfg)
    cfg = config(one_trajectory, tiny_vl, tmp_path, options={"no_such_field": 1})
    with pytest.raises(CuaError, match=r"sft --trainer trl: unknown trainer option 'no_such_field'"):
        run_sft(cfg)
    # The other trl.SFTConfig fields, typed by their annotations before anything starts.
    typed = preflight(config(one_trajectory, tiny_vl, tmp_path, options={"bf16": "false", "eval_steps": "5"}))
    assert typed.options == {"bf16": False, "eval_steps": 5.0}
    with pytest.raises(CuaError, match=r"--trainer-option bf16=maybe: bf16 must be true or false"):
        preflight(config(one_trajectory, tiny_vl, tmp_path, options={"bf16": "maybe"}))


@pytest.mark.slow
def test_two_processes_under_torchrun_train_as_one_ddp_gang(
    one_trajectory: Path, tiny_vl: Path, tmp_path: Path
) -> None:
    """torchrun sets RANK/WORLD_SIZE/MASTER_*, the names the pool's gangs export too; accelerate makes it DDP (gloo)."""
    job = Path(__file__).with_name("ddp_job.py")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = str(free.getsockname()[1])
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port", port]
    done = subprocess.run(
        [*command, str(job), str(one_trajectory), str(tiny_vl), str(tmp_path)],
        check=False, capture_output=True, text=True, timeout=120, env={**os.environ, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert [r["world_size"] for r in ranks] == [2, 2] and [r["exchanges"] for r in ranks] == [2, 2]
    assert ranks[0]["losses"] == ranks[1]["losses"] and all(math.isfinite(v) for v in ranks[0]["losses"])
    assert ranks[0]["adapter"] and ranks[1]["adapter"] is None  # rank 0 writes the weights
    assert [r["wrapper"] for r in ranks] == ["DistributedDataParallel"] * 2
    assert [r["left_group"] for r in ranks] == [True, True]  # none exits with gloo's threads still up
    assert ranks[0]["lora_sum"] == ranks[1]["lora_sum"] > 0  # gradients were averaged: the ranks agree
    # Each rank trained on one of the two examples a step: every rank's tokens are both examples' tokens.
    examples = load_examples(config(one_trajectory, tiny_vl, tmp_path))
    both = int(collate(examples, load_processor(tiny_vl))["attention_mask"].sum())
    assert ranks[0]["tokens"] == ranks[1]["tokens"] == 2 * both
    assert FolderCheckpoints(tmp_path / "checkpoints").latest() == 2


@pytest.mark.slow
def test_resume_with_other_settings_is_refused(
    trained: tuple[SFTResult, list[SFTStep], Path], tiny_vl: Path, one_trajectory: Path, tmp_path: Path
) -> None:
    shutil.copytree(trained[2] / "checkpoints", tmp_path / "checkpoints")
    with pytest.raises(CuaError, match="other settings"):
        run_sft(config(one_trajectory, tiny_vl, tmp_path, steps=5, lr=1e-3))


def test_ranks_that_would_resume_from_different_steps_stop_with_an_error(
    one_trajectory: Path, tiny_vl: Path, tmp_path: Path
) -> None:
    """Rank 0 finds its own checkpoint at step 3, rank 1 none: they would train different steps and wait
    on each other's gradients until gloo's timeout."""
    job = Path(__file__).parents[1] / "support" / "sft_own_output.py"
    args = [str(job), "trl", str(tiny_vl), str(one_trajectory), str(tmp_path)]
    alone = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    subprocess.run([sys.executable, *args], env=alone, check=True, capture_output=True, timeout=120)
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = str(free.getsockname()[1])
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port", port, *args]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=180, env=alone)
    assert done.returncode != 0
    assert done.stdout.count("REFUSED trl: the ranks would resume from different steps (rank 0: 3, rank 1: 0)") == 2
