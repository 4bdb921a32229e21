"""GRPOTrainer.save/load: a resume continues exactly, and checkpoints that cannot fit are refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch

from cua_core.errors import CuaError
from cua_trainer_grpo import GRPOConfig
from cua_trainer_grpo.trainer import GRPOTrainer

REWARDS = [[1.0, 0.0, 0.0, 1.0], [0.5, 1.0, 0.0, 0.0]]


def config(lora: bool, **changes: Any) -> GRPOConfig:
    extra = {"lora": True, "lora_rank": 2, "lora_targets": ("proj",)} if lora else {}
    return GRPOConfig(**{"lr": 0.05, "epochs_per_batch": 2, **extra, **changes})


@pytest.mark.parametrize("lora", [False, True], ids=["full", "lora"])
def test_two_steps_saved_and_one_resumed_equal_three_uninterrupted(
    linear_policy: Any, make_groups: Any, tmp_path: Path, lora: bool
) -> None:
    groups = make_groups(linear_policy(seed=7), REWARDS)

    torch.manual_seed(0)  # LoRA's A matrices start random
    straight = GRPOTrainer(linear_policy(), config(lora))
    for _ in range(3):
        straight.train_step(groups)

    torch.manual_seed(0)
    first = GRPOTrainer(linear_policy(), config(lora))
    for _ in range(2):
        first.train_step(groups)
    first.save(tmp_path / "ckpt")
    expected_draw = torch.rand(4)  # what the generators give right after the save

    torch.manual_seed(12345)  # a fresh process would start elsewhere
    resumed = GRPOTrainer(linear_policy(), config(lora))
    resumed.load(tmp_path / "ckpt")
    assert resumed.step == 2
    assert torch.equal(torch.rand(4), expected_draw)
    resumed.train_step(groups)
    assert resumed.step == 3
    want, got = straight.policy.state_dict(), resumed.policy.state_dict()
    assert want.keys() == got.keys()
    for key in want:
        assert torch.equal(want[key], got[key]), key
    saved = sorted(p.name for p in (tmp_path / "ckpt").iterdir())
    weights = "adapter" if lora else "model.safetensors"
    assert saved == sorted([weights, "optimizer.pt", "rng.json", "rng.pt", "trainer.json"])
    if lora:
        assert (tmp_path / "ckpt" / "adapter" / "adapter_config.json").is_file()  # servable as is


@pytest.mark.parametrize(
    ("saved", "loading", "field"),
    [
        (config(True), config(True, lora_rank=4), "lora_rank"),
        (config(True), config(False), "lora"),
        (config(True), config(True, lora_targets=("proj", "other")), "lora_targets"),
    ],
    ids=["rank", "lora-off", "targets"],
)
def test_a_checkpoint_that_cannot_fit_is_refused_naming_the_setting(
    linear_policy: Any, make_groups: Any, tmp_path: Path, saved: GRPOConfig, loading: GRPOConfig, field: str
) -> None:
    GRPOTrainer(linear_policy(), saved).save(tmp_path)
    policy = linear_policy()
    if field == "lora_targets":  # a second target the policy really has
        policy.other = torch.nn.Linear(2, 2)
    with pytest.raises(CuaError, match=rf"saved with {field}=.*this trainer has {field}="):
        GRPOTrainer(policy, loading).load(tmp_path)


def test_a_checkpoint_of_another_policy_or_no_checkpoint_is_refused(
    linear_policy: Any, entropy_policy: Any, tmp_path: Path
) -> None:
    GRPOTrainer(linear_policy(), config(False)).save(tmp_path / "a")
    with pytest.raises(CuaError, match=r"saved with policy=.*LinearPolicy.*EntropyLinearPolicy"):
        GRPOTrainer(entropy_policy(), config(False)).load(tmp_path / "a")
    with pytest.raises(CuaError, match="not a GRPO checkpoint"):
        GRPOTrainer(linear_policy(), config(False)).load(tmp_path)


def test_weights_that_do_not_fit_are_an_error_not_a_partial_load(linear_policy: Any, tmp_path: Path) -> None:
    GRPOTrainer(linear_policy(choices=6), config(False)).save(tmp_path)
    with pytest.raises(CuaError, match="saved weights do not fit"):
        GRPOTrainer(linear_policy(choices=5), config(False)).load(tmp_path)


def test_a_new_learning_rate_applies_after_a_resume(linear_policy: Any, make_groups: Any, tmp_path: Path) -> None:
    policy = linear_policy()
    trainer = GRPOTrainer(policy, config(False))
    trainer.train_step(make_groups(policy, REWARDS))
    trainer.save(tmp_path)
    assert json.loads((tmp_path / "trainer.json").read_text())["config"]["lr"] == 0.05
    resumed = GRPOTrainer(linear_policy(), config(False, lr=0.01, clip_high=0.3))
    resumed.load(tmp_path)
    assert [g["lr"] for g in resumed.optimizer.param_groups] == [0.01]
    assert resumed.optimizer.state_dict()["state"]  # Adam's moments came back
