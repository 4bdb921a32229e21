"""GRPOTrainer.train_step on a small linear policy: figures, dropped groups, accumulation, LoRA, KL, entropy."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
import torch

from cua_bench_rl.registry import trainers
from cua_core.errors import CuaError
from cua_trainer_grpo import GRPOConfig
from cua_trainer_grpo.trainer import GRPOTrainer

REWARDS = [[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.5, 1.0, 0.0, 0.0]]


def weights(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def test_registered_as_grpo() -> None:
    assert trainers()["grpo"] is GRPOTrainer


def test_a_step_drops_zero_spread_groups_and_reports_its_figures(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    groups = make_groups(policy, REWARDS)
    before = weights(policy)
    trainer = GRPOTrainer(policy, GRPOConfig(lr=0.05))
    figures = trainer.train_step(groups)
    assert (figures["groups_used"], figures["groups_dropped"]) == (2, 1)
    assert figures["turns"] == 2 * 4 * 2 and figures["tokens"] == 2 * 4 * (1 + 2)
    assert figures["optimizer_steps"] == 1 and trainer.step == 1
    for name in ("loss", "pg_loss", "kl", "clip_fraction", "ratio_mean", "grad_norm"):
        assert math.isfinite(figures[name]), name
    assert figures["ratio_mean"] == pytest.approx(1.0, abs=1e-6)  # first pass: the sampling weights
    assert figures["clip_fraction"] == 0.0 and figures["grad_norm"] > 0
    assert not torch.equal(before["proj.weight"], policy.proj.weight)


def test_a_step_where_every_group_is_dropped_takes_no_optimiser_step(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    before = weights(policy)
    trainer = GRPOTrainer(policy, GRPOConfig(lr=0.05))
    figures = trainer.train_step(make_groups(policy, [[1.0, 1.0], [0.0, 0.0]]))
    assert (figures["groups_used"], figures["groups_dropped"], figures["optimizer_steps"]) == (0, 2, 0)
    # The version counts optimiser steps: a call that moved nothing is not one (it was, 24 of 68 steps once).
    assert figures["turns"] == 0 and trainer.step == 0
    groups = make_groups(policy, [[1.0, 1.0], [0.0, 1.0]])
    assert [trainer.informative(g) for g in groups] == [False, True]  # the loop replaces the first
    assert all(torch.equal(before[k], v) for k, v in policy.state_dict().items())
    with pytest.raises(ValueError, match="at least one group"):
        trainer.train_step([])


@pytest.mark.parametrize("norm", ["token", "sequence"])
def test_accumulated_micro_batches_give_the_gradient_of_the_whole_batch(
    linear_policy: Any, make_groups: Any, norm: str
) -> None:
    """micro_batch=1 x 16 accumulated == one micro-batch of 16, for turns of 1 and 2 tokens (the gradient
    is compared: AdamW's first step is about lr * sign(gradient), which float noise flips where it is ~0)."""
    groups = make_groups(linear_policy(), REWARDS[:1] + REWARDS[2:])
    results = []
    for micro, accumulation in ((16, 1), (1, 16), (3, 6)):
        policy = linear_policy()
        trainer = GRPOTrainer(policy, GRPOConfig(lr=0.05, micro_batch=micro, grad_accumulation=accumulation,
                                                    loss_norm=norm, max_grad_norm=0.0))  # fmt: skip
        figures = trainer.train_step(groups)
        assert figures["optimizer_steps"] == 1
        grads = {n: p.grad.detach().clone() for n, p in policy.named_parameters()}  # kept after the step
        results.append((grads, figures["loss"]))
    for other, loss in results[1:]:
        assert loss == pytest.approx(results[0][1], abs=1e-6)  # ~0 on the first pass: advantages sum to 0
        for key, value in results[0][0].items():
            torch.testing.assert_close(other[key], value, rtol=1e-5, atol=1e-7)


def test_updates_split_a_batch_and_later_epochs_move_the_ratio(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    groups = make_groups(policy, REWARDS)
    trainer = GRPOTrainer(policy, GRPOConfig(lr=0.5, micro_batch=4, grad_accumulation=2, epochs_per_batch=3))
    figures = trainer.train_step(groups)
    assert figures["optimizer_steps"] == 3 * 2  # 16 turns / (4 x 2) per update, three passes
    assert figures["ratio_mean"] != pytest.approx(1.0, abs=1e-4)
    assert figures["clip_fraction"] > 0


def test_lora_trains_the_adapter_only(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    groups = make_groups(policy, REWARDS)
    trainer = GRPOTrainer(policy, GRPOConfig(lr=0.05, lora=True, lora_rank=2, lora_targets=("proj",)))
    trainable = {n for n, p in trainer.module.named_parameters() if p.requires_grad}
    assert trainable and all("lora_" in n for n in trainable)
    before = weights(policy)
    for _ in range(2):
        figures = trainer.train_step(groups)
        assert math.isfinite(figures["loss"])
    after = weights(policy)
    base = [k for k in before if "lora_" not in k]
    lora = [k for k in before if "lora_" in k]
    assert base and lora
    assert all(torch.equal(before[k], after[k]) for k in base)
    assert any(not torch.equal(before[k], after[k]) for k in lora)


def test_lora_without_targets_or_with_wrong_ones_says_how_to_fix_it(linear_policy: Any) -> None:
    with pytest.raises(CuaError, match="lora_targets"):
        GRPOTrainer(linear_policy(), GRPOConfig(lora=True))
    with pytest.raises(CuaError, match="linear layers are named: proj"):
        GRPOTrainer(linear_policy(), GRPOConfig(lora=True, lora_targets=("q_proj",)))


def test_kl_to_a_frozen_copy_grows_as_the_policy_moves(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    groups = make_groups(policy, REWARDS)
    reference = copy.deepcopy(policy)
    frozen = weights(reference)
    trainer = GRPOTrainer(policy, GRPOConfig(lr=0.2, kl_coef=0.1), reference=reference)
    kls = [trainer.train_step(groups)["kl"] for _ in range(3)]
    assert kls[0] == pytest.approx(0.0, abs=1e-7) and kls[2] > kls[1] > 0
    assert all(torch.equal(frozen[k], v) for k, v in reference.state_dict().items())
    assert not any(p.requires_grad for p in reference.parameters())


def test_kl_with_lora_compares_with_the_adapter_switched_off(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    groups = make_groups(policy, REWARDS)
    config = GRPOConfig(lr=0.2, kl_coef=0.1, lora=True, lora_targets=("proj",))
    trainer = GRPOTrainer(policy, config)
    assert trainer.reference is None  # no copy of the model: the base is the reference
    kls = [trainer.train_step(groups)["kl"] for _ in range(3)]
    assert kls[0] == pytest.approx(0.0, abs=1e-7) and kls[2] > 0


def test_entropy_bonus_needs_a_policy_that_scores_entropy(
    linear_policy: Any, entropy_policy: Any, make_groups: Any
) -> None:
    with pytest.raises(CuaError, match="logprobs_and_entropy"):
        GRPOTrainer(linear_policy(), GRPOConfig(entropy_coef=0.01))
    policy = entropy_policy(choices=4)
    figures = GRPOTrainer(policy, GRPOConfig(entropy_coef=0.01)).train_step(make_groups(policy, REWARDS))
    assert 0 < figures["entropy"] <= math.log(4) + 1e-6
    assert figures["loss"] == pytest.approx(figures["pg_loss"] - 0.01 * figures["entropy"], abs=1e-6)


def test_scores_that_do_not_line_up_with_the_tokens_are_named(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    groups = make_groups(policy, REWARDS[:1])
    policy.logprobs = lambda taken: [torch.zeros(5, requires_grad=True) for _ in taken]  # type: ignore[method-assign]
    with pytest.raises(CuaError, match=r"turn 0 \(episode g0e0, step 0\) has 1 tokens but its scores are \[5\]"):
        GRPOTrainer(policy, GRPOConfig()).train_step(groups)


def test_a_policy_without_trainable_parameters_is_refused(linear_policy: Any) -> None:
    policy = linear_policy()
    policy.requires_grad_(False)
    with pytest.raises(CuaError, match="no trainable parameters"):
        GRPOTrainer(policy, GRPOConfig())


def test_rloo_and_gspo_are_trainer_options(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    before = weights(policy)
    config = GRPOConfig(lr=0.05, advantage_baseline="leave_one_out", advantage_scale="none", importance="sequence")
    figures = GRPOTrainer(policy, config).train_step(make_groups(policy, [[1.0, 0.0], [0.0, 0.0]]))
    assert figures["optimizer_steps"] == 1 and figures["groups_used"] == 1
    assert not all(torch.equal(before[k], v) for k, v in policy.state_dict().items())
    with pytest.raises(ValueError, match="importance must be one of token, sequence, got 'turn'"):
        GRPOConfig(importance="turn")


def test_answers_cut_off_at_the_token_limit_are_left_out(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    groups = make_groups(policy, [[1.0, 0.0]])
    for taken in groups[0].episodes[0].turns:  # the rewarded episode's answers were all cut off
        taken.decision.truncated = True
    figures = GRPOTrainer(policy, GRPOConfig(lr=0.05)).train_step(groups)
    assert (figures["turns"], figures["turns_truncated"]) == (2, 2)  # only the other episode's two turns
    kept = GRPOTrainer(policy, GRPOConfig(lr=0.05, mask_truncated=False)).train_step(groups)
    assert (kept["turns"], kept["turns_truncated"]) == (4, 0)
