"""GRPO with LoRA on the tiny Qwen2.5-VL, end to end: real sim env servers, the rollout loader, a rollout
copy fed by the in-process publisher, three optimiser steps, a checkpoint after step 2 resumed exactly.

A random-weight model writes no tool call, so every reward would be 0 and every group dropped. The test
first gives it something to choose between, as SFT would: a few supervised steps on the first turn's
prompt teach it to write either the oracle's click or a click on empty desktop, about half the time
each, so G=4 groups have reward spread and GRPO has something to learn from.
"""

from __future__ import annotations

import copy
import math
import time
from pathlib import Path

import pytest
import torch

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.loader import RolloutLoader, episode_spec
from cua_bench_rl.rollouts import Group, Turn
from cua_bench_rl.workers import EnvWorkers, client_for
from cua_core.actions import Click, Point, action_from_dict
from cua_trainer_grpo import GRPOConfig
from cua_trainer_grpo.policies.vlm import QwenVLPolicy
from cua_trainer_grpo.publish import InProcessPublisher
from cua_trainer_grpo.trainer import GRPOTrainer

TASK = EpisodeSpec("sim/click-button", 2, "train")
OPTIONS = {"max_size": "320x200", "max_new_tokens": 40}
CONFIG = GRPOConfig(lr=5e-4, lora=True, lora_rank=8, lora_alpha=16, micro_batch=4, grad_accumulation=2)


def first_turn(workers: EnvWorkers, policy: QwenVLPolicy) -> tuple[Turn, Click]:
    """The policy's first turn of TASK as the loader will show it, and the oracle's click."""
    with client_for(workers[0].computer) as env:
        obs, info = env.reset(options=episode_spec(TASK, policy.observes, None))
        solved = env.solve()
    (oracle,) = [action_from_dict(a) for a in solved["steps"][0]["actions"]]
    assert solved["reward"] == 1.0 and isinstance(oracle, Click)
    instruction = info["task"]["description"]
    return Turn("warm", TASK, instruction, 0, obs, max_steps=1), oracle


# The parameters the fit moves: none of them shapes the prompt's keys and values (the first layer, the second
# layer's key/value projections and the vision tower stay), so the prompt is encoded once and cached.
_FITTED = (
    "lm_head.",
    "model.language_model.norm.",
    "model.language_model.layers.1.self_attn.q_proj.",
    "model.language_model.layers.1.self_attn.o_proj.",
    "model.language_model.layers.1.post_attention_layernorm.",
    "model.language_model.layers.1.mlp.",
)


def fit_answers(policy: QwenVLPolicy, turn: Turn, answers: list[str], steps: int = 80) -> float:
    """Teach the model to answer ``turn`` with one of ``answers``, equally likely; returns the last loss.

    Supervised fine-tuning on the answer tokens only, against the prompt's cached keys and values, so a
    step costs a forward pass over ~40 tokens instead of the ~2300 of the prompt."""
    tokenizer, model = policy.processor.tokenizer, policy.model
    prompt = policy.render(turn)
    inputs = policy.processor(text=[policy._chat(prompt)], images=prompt.images, return_tensors="pt")
    length = inputs["input_ids"].shape[1]
    # All but the prompt's last token go in the cache; that token's logits predict the answer's first.
    head = {k: (v[:, : length - 1] if v.dim() == 2 and v.shape[1] == length else v) for k, v in inputs.items()}
    last = inputs["input_ids"][0, length - 1 :]
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    targets = [torch.tensor(tokenizer(a, add_special_tokens=False)["input_ids"] + [end]) for a in answers]
    for name, param in model.named_parameters():
        param.requires_grad_(name.startswith(_FITTED))
    with torch.no_grad():
        cache = model(**head, use_cache=True).past_key_values
    optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=2e-2)
    for _ in range(steps):
        optimiser.zero_grad()
        total = 0.0
        for target in targets:
            tokens = torch.cat([last, target[:-1]])[None]
            logits = model(input_ids=tokens, past_key_values=cache, use_cache=True).logits[0]
            cache.crop(-tokens.shape[1])  # back to the prompt alone
            loss = torch.nn.functional.cross_entropy(logits.float(), target) / len(targets)
            loss.backward()
            total += float(loss.detach())
        optimiser.step()
    model.requires_grad_(True)
    return total


def lora_state(policy: QwenVLPolicy) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in policy.model.state_dict().items() if "lora_" in k}


def base_state(policy: QwenVLPolicy) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in policy.model.state_dict().items() if "lora_" not in k}


@pytest.mark.slow
def test_grpo_with_lora_learns_on_sim_env_servers_and_resumes(tiny_vl: Path, tmp_path: Path) -> None:
    torch.manual_seed(0)
    with EnvWorkers("sim", 4, width=640, height=400) as workers:
        warm = QwenVLPolicy(str(tiny_vl), **OPTIONS)
        turn, oracle = first_turn(workers, warm)
        size = (320, 200)  # the screenshot the model sees (max_size)
        answers = [warm.adapter.format_output([c], size) for c in (Click(oracle.coordinate), Click(Point(40, 960)))]
        assert fit_answers(warm, turn, answers) < 0.1  # about ln(2)/35: the two answers, half each
        warm.save_pretrained(tmp_path / "warm")  # the "SFT checkpoint" both trainers below start from

        policy = QwenVLPolicy(str(tmp_path / "warm"), **OPTIONS)
        trainer = GRPOTrainer(policy, CONFIG)
        rollout = copy.deepcopy(policy)
        publisher = InProcessPublisher(rollout)
        base_before, lora_before = base_state(policy), lora_state(policy)
        loader = RolloutLoader(workers, [TASK], group_size=4, observes=policy.observes, max_steps=1, seed=0)
        figures: list[dict[str, float]] = []  # of the calls that stepped, in step order
        calls: list[dict[str, float]] = []  # of every call, a step or not
        batches: list[list[Group]] = []
        rewards: list[float] = []
        seconds: list[float] = []
        waiting: list[Group] = []
        with loader:
            for batch in loader.batches(max_batch=8):
                batch.respond(rollout.act(batch.turns), version=rollout.version)
                waiting += loader.pop_groups()
                if len(waiting) < 2:
                    continue
                groups, waiting = waiting[:2], waiting[2:]
                started, before = time.monotonic(), trainer.step
                stepped = trainer.train_step(groups)
                calls.append(stepped)
                assert len(calls) <= 12, f"3 steps not reached in {len(calls)} calls: {calls}"
                if trainer.step == before:  # both groups alike (all 0 or all 1): no weights moved, no version
                    continue
                figures.append(stepped)
                seconds.append(time.monotonic() - started)
                publisher(policy, trainer.step)
                batches.append(groups)
                rewards += [r for g in groups for r in g.rewards]
                if trainer.step == 2:
                    trainer.save(tmp_path / "step-2")
                    at_two = lora_state(policy)
                if trainer.step == 3:
                    break

    print(f"\nGRPO steps: {[round(s, 2) for s in seconds]} s; rewards {rewards}; figures {figures}")
    assert all(f["groups_used"] + f["groups_dropped"] == 2 for f in calls) and len(figures) == 3
    assert sum(f["optimizer_steps"] > 0 for f in calls) == 3
    assert all(math.isfinite(f["loss"]) and math.isfinite(f["kl"]) for f in figures)
    assert sum(f["groups_used"] for f in figures) > 0 and 0 < sum(rewards) < len(rewards)
    # one turn per episode (max_steps=1), trained on unless cut off at the token limit
    assert all(f["turns"] + f["turns_truncated"] == 4 * f["groups_used"] for f in figures)
    assert rollout.version == 3 and {e.version for g in batches[0] for e in g.episodes} == {0}
    assert max(e.version for g in batches[2] for e in g.episodes) <= 2  # sampled before the third step
    after = lora_state(policy)
    assert any(not torch.equal(lora_before[k], after[k]) for k in after)  # LoRA learnt
    assert all(torch.equal(base_before[k], v) for k, v in base_state(policy).items())  # the base did not
    for key, value in after.items():  # the rollout copy holds what was published last
        assert torch.equal(rollout.model.state_dict()[key], value)

    fresh = QwenVLPolicy(str(tmp_path / "warm"), **OPTIONS)
    resumed = GRPOTrainer(fresh, CONFIG)
    resumed.load(tmp_path / "step-2")
    assert resumed.step == 2
    assert all(torch.equal(at_two[k], v) for k, v in lora_state(fresh).items())
    again = resumed.train_step(batches[2])
    assert resumed.step == 3 and again["loss"] == pytest.approx(figures[2]["loss"], abs=1e-6)
    for key, value in lora_state(fresh).items():
        torch.testing.assert_close(value, after[key], rtol=1e-5, atol=1e-6)  # step 3 again, from the checkpoint
