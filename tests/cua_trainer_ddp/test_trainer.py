"""The ddp SFT trainer on a tiny random-weight Qwen2.5-VL and sim oracle data: it learns, resumes where
it stopped, and under torchrun exchanges gradients once per step."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

import torch
from click.testing import CliRunner

from cua_bench_rl.checkpoints import FolderCheckpoints
from cua_bench_rl.cli import main
from cua_bench_rl.sft import SFTConfig, oracle_dataset, run_sft
from cua_core.errors import CuaError
from cua_data.tiny_models import build_tiny_qwen25_vl


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    root = tmp_path_factory.mktemp("ddp")
    model = build_tiny_qwen25_vl(root / "model")
    one = oracle_dataset(root / "one", tasks=("click-button",), variants=1)  # 2 decisions: a fixed batch
    some = oracle_dataset(root / "some", tasks=("click-button", "login"), variants=2)
    return str(model), str(one), str(some)


# The tiny model's random output layer and final norm, frozen, bound its logits (loss stalls at 5.83
# with attention-only LoRA); a LoRA on lm_head lifts the bound, as training them would.
TINY_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "lm_head")


def settings(model: str, data: str, output: Path, **overrides: object) -> SFTConfig:
    base = {"data": data, "model": model, "trainer": "ddp", "output": str(output), "lr": 1e-2, "checkpoint_every": 1}
    base["lora_targets"] = TINY_TARGETS
    return SFTConfig.from_dict({**base, **overrides})


def test_loss_falls_on_a_fixed_batch_and_only_the_adapter_trains(tiny: tuple[str, str, str], tmp_path: Path) -> None:
    model, one, _ = tiny
    result = run_sft(settings(model, one, tmp_path, steps=8, micro_batch=2))
    assert len(result.losses) == 8 and all(torch.isfinite(torch.tensor(result.losses)))
    assert result.losses[-1] < result.losses[0] - 1.0, result.losses  # 6.12 -> 3.56 when measured
    assert result.world_size == 1 and result.exchanges == 0 and result.tokens > 0
    state = FolderCheckpoints(tmp_path / "checkpoints").load()
    assert state["step"] == 8
    names = list(state["trainable"])
    assert names and all("lora_" in name for name in names)  # the base weights never train
    assert any(float(t.abs().sum()) > 0 for n, t in state["trainable"].items() if "lora_B" in n)  # B starts at 0
    assert (Path(result.adapter or "") / "adapter_config.json").is_file()
    assert_a_model_the_hf_agent_loads(Path(result.adapter or ""), lora=True)


def assert_a_model_the_hf_agent_loads(folder: Path, *, lora: bool) -> None:
    """The trained folder loads as it is: what `cua-bench run --agent hf --model FOLDER` does, with the
    prompt settings training used (before: "Can't load video processor", and no settings at all)."""
    from cua_bench.agents.hf import HFAgent
    from cua_data.adapters.history import HistoryPolicy

    assert folder.name == "model" and (folder / "adapter_config.json").is_file() == lora
    agent = HFAgent(model=str(folder), max_new_tokens=2)
    assert agent.adapter.name == "qwen2.5-vl" and agent.adapter.history == HistoryPolicy(last_n=2)
    assert bool(getattr(agent.engine.model, "peft_config", None)) == lora


def test_full_fine_tuning_changes_the_base_weights(tiny: tuple[str, str, str], tmp_path: Path) -> None:
    from transformers import Qwen2_5_VLForConditionalGeneration

    model, one, _ = tiny
    result = run_sft(settings(model, one, tmp_path, steps=2, lora=False, lr=1e-3))
    assert_a_model_the_hf_agent_loads(Path(result.adapter or ""), lora=False)
    before = Qwen2_5_VLForConditionalGeneration.from_pretrained(model).state_dict()
    after = FolderCheckpoints(tmp_path / "checkpoints").load()["trainable"]
    assert len(after) > 20 and not any("lora_" in n for n in after)
    changed = [n for n, t in after.items() if n.split("model.", 1)[-1] in {k.split("model.", 1)[-1] for k in before}]
    assert changed, "checkpoint names do not match the model's"
    key = next(n for n in after if n.endswith("q_proj.weight") and "language" in n)
    original = next(t for n, t in before.items() if n.endswith(key.split("model.", 1)[-1]))
    assert not torch.equal(after[key], original)


def test_a_resumed_run_continues_the_same_run(tiny: tuple[str, str, str], tmp_path: Path) -> None:
    model, _, some = tiny
    straight = run_sft(settings(model, some, tmp_path / "a", steps=4))
    first = run_sft(settings(model, some, tmp_path / "b", steps=2))
    resumed = run_sft(settings(model, some, tmp_path / "b", steps=4))
    assert (first.start_step, first.steps, resumed.start_step, resumed.steps) == (0, 2, 2, 4)
    assert resumed.losses == pytest.approx(straight.losses[2:], rel=1e-4)  # same data, weights and optimiser
    a = FolderCheckpoints(tmp_path / "a" / "checkpoints").load()["trainable"]
    b = FolderCheckpoints(tmp_path / "b" / "checkpoints").load()["trainable"]
    assert all(torch.allclose(a[n], b[n], atol=1e-6) for n in a)
    again = ["sft", "--data", some, "--model", model, "--steps", "4", "--output", str(tmp_path / "b"), "--lr", "1e-2"]
    done = CliRunner().invoke(main, [*again, "--lora-targets", ",".join(TINY_TARGETS)])
    assert done.exit_code == 1 and "no step was trained: the newest checkpoint is already at step 4" in done.output
    with pytest.raises(CuaError, match=r"other settings \(lr 0.01 -> 0.001; lora_rank 8 -> 4\)"):
        run_sft(settings(model, some, tmp_path / "b", steps=5, lr=1e-3, lora_rank=4))


def test_unknown_trainer_option(tiny: tuple[str, str, str], tmp_path: Path) -> None:
    model, one, _ = tiny
    with pytest.raises(CuaError, match=r"unknown trainer option.*link_dealy_ms.*its trainer options: link_delay_ms"):
        run_sft(settings(model, one, tmp_path, steps=1, options={"link_dealy_ms": 5}))


def test_lora_targets_the_model_lacks_name_the_flag_that_fixes_it(tiny: tuple[str, str, str], tmp_path: Path) -> None:
    model, one, _ = tiny
    with pytest.raises(CuaError, match=r"LoRA targets no_such_proj match no module .*set --lora-targets NAME,NAME"):
        run_sft(settings(model, one, tmp_path, steps=1, lora_targets=("no_such_proj",)))


def test_two_ranks_under_torchrun_exchange_once_per_step(tiny: tuple[str, str, str], tmp_path: Path) -> None:
    model, _, some = tiny
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port", "29611"]
    command += ["-m", "cua_bench_rl.cli", "sft", "--data", some, "--model", model, "--trainer", "ddp", "--json"]
    command += ["--steps", "3", "--grad-accumulation", "3", "--micro-batch", "1", "--output", str(tmp_path)]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == 1  # rank 0 reports; rank 1 trains and stays quiet
    result = rows[0]
    assert result["world_size"] == 2 and result["steps"] == 3
    assert result["exchanges"] == 3  # 9 micro-batches per rank, gradients crossed once per step
    assert FolderCheckpoints(tmp_path / "checkpoints").latest() == 3


def test_ranks_that_would_resume_from_different_steps_stop_with_an_error(
    tiny: tuple[str, str, str], tmp_path: Path
) -> None:
    """Each rank reading its own checkpoints (rank 0 finds step 1, rank 1 none) paired its collectives
    wrongly: rank 0 skipped training while rank 1 trained, and both waited until gloo's timeout."""
    model, one, _ = tiny
    run_sft(SFTConfig(data=one, model=model, trainer="ddp", steps=1, micro_batch=1, output=str(tmp_path / "rank0")))
    job = Path(__file__).parents[1] / "support" / "sft_own_output.py"
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port", "29612"]
    command += [str(job), "ddp", model, one, str(tmp_path)]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=180)
    assert done.returncode != 0
    assert done.stdout.count("REFUSED ddp: the ranks would resume from different steps (rank 0: 1, rank 1: 0)") == 2
