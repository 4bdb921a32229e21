"""Rollouts sampled through an OpenAI-compatible server (a real HTTP server on loopback serving the tiny
Qwen2.5-VL as vLLM does), scored in process, with each published version the one the next rollouts ask for;
and the servers that would bias every importance ratio, refused with the fix named."""

from __future__ import annotations

import copy
import csv
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from support.rl_configs import TRAINER
from support.served_vlm import served_tiny_model

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.config import TrainConfig
from cua_bench_rl.rollouts import Taken, Turn
from cua_core.errors import CuaError
from cua_trainer_grpo import GRPOConfig
from cua_trainer_grpo.policies.vlm import QwenVLPolicy
from cua_trainer_grpo.trainer import GRPOTrainer

TASK = EpisodeSpec("sim/click-button", 0, "train")
OPTIONS: dict[str, Any] = {"max_new_tokens": 8, "max_size": "320x200"}


def turn(episode: str, seed: int, history: list[Taken] | None = None) -> Turn:
    shot = np.random.default_rng(seed).integers(0, 255, (200, 320, 3), dtype=np.uint8)
    observation = {"instruction": "Click OK", "step": len(history or []), "width": 1280, "height": 800,
                   "errors": [], "screenshot": shot}  # fmt: skip
    return Turn(episode, TASK, "Click OK", len(history or []), observation, list(history or []), max_steps=3)


def chats(server: Any) -> list[dict[str, Any]]:
    return [r for r in server.requests if "messages" in r]


def images(request: dict[str, Any]) -> int:
    parts = [p for m in request["messages"] if isinstance(m.get("content"), list) for p in m["content"]]
    return sum(p.get("type") == "image_url" for p in parts)


def test_the_server_samples_and_the_trainer_scores_the_same_tokens_and_distribution(tiny_vl: Path) -> None:
    with served_tiny_model(tiny_vl) as (server, _):
        policy = QwenVLPolicy(str(tiny_vl), server=server.base_url, temperature=0.7, top_p=0.9, **OPTIONS)
        first = [turn("e0", 0), turn("e1", 1)]
        taken = [Taken(t, d) for t, d in zip(first, policy.act(first), strict=True)]
        second = turn("e0", 2, history=taken[:1])
        taken.append(Taken(second, policy.act([second])[0]))  # a turn with history: two screenshots
        requests = chats(server)
        assert len(requests) == 3 and policy.served is not None and policy.served.checked
        for body in requests:
            assert (body["model"], body["temperature"], body["top_p"], body["top_k"]) == ("base", 0.7, 0.9, -1)
            assert body["logprobs"] and body["return_token_ids"] and body["repetition_penalty"] == 1.0
        parts = [p for m in requests[2]["messages"] if isinstance(m.get("content"), list) for p in m["content"]]
        urls = [p["image_url"]["url"] for p in parts if p.get("type") == "image_url"]
        assert len(urls) == 2 and all(u.startswith("data:image/png;base64,") for u in urls)
        for t, score in zip(taken, policy.logprobs(taken), strict=True):
            assert 0 < len(t.decision.tokens) <= 8 and all(np.isfinite(t.decision.logprobs))
            torch.testing.assert_close(score.detach(), torch.tensor(t.decision.logprobs), atol=1e-4, rtol=0)
        cut = [t.decision for t in taken if len(t.decision.tokens) == 8 and t.decision.tokens[-1] not in policy.eos_ids]
        assert all(d.truncated for d in cut)
        policy.act([turn("e3", 3)], greedy=True)
        assert chats(server)[-1]["temperature"] == 0.0


def move(policy: QwenVLPolicy, seed: int) -> None:
    """Stand-in for optimiser steps: new values for the LoRA adapter's B matrices."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in policy.model.named_parameters():
            if "lora_B" in name:
                param.copy_(torch.randn(param.shape, generator=generator) * 0.5)


def test_each_published_version_is_what_every_copy_asks_the_server_for(tiny_vl: Path, tmp_path: Path) -> None:
    with served_tiny_model(tiny_vl) as (server, _):
        policy = QwenVLPolicy(str(tiny_vl), server=server.base_url, publish_dir=str(tmp_path / "policy"), **OPTIONS)
        GRPOTrainer(policy, GRPOConfig(lora=True, lora_rank=4))
        rollout = copy.deepcopy(policy)
        assert rollout.served is policy.served  # one server
        rollout.load_published(policy.state_dict_for_publish(), 0)
        move(policy, seed=1)
        rollout.load_published(policy.state_dict_for_publish(), 1)
        loads = [(r["lora_name"], Path(r["lora_path"]).name) for r in server.requests if "lora_path" in r]
        assert loads == [("policy", "v0"), ("policy", "v1")]
        played = turn("e0", 0)
        decision = rollout.act([played])[0]
        assert chats(server)[-1]["model"] == "policy" and rollout.served is not None and rollout.served.checked
        scored = rollout.logprobs([Taken(played, decision)])[0].detach()
        torch.testing.assert_close(scored, torch.tensor(decision.logprobs), atol=1e-4, rtol=0)
        base = QwenVLPolicy(str(tiny_vl), **OPTIONS).logprobs([Taken(played, decision)])[0].detach()
        assert not torch.allclose(base, scored, atol=1e-2)  # the server sampled the published version, not the base
        policy.act([played], greedy=True)  # the trained copy (held-out evaluation) asks for it too
        assert chats(server)[-1]["model"] == "policy"


@pytest.mark.parametrize(
    ("server_options", "policy_options", "error"),
    [
        ({"logprobs_mode": "raw"}, {"temperature": 0.3}, "--logprobs-mode processed_logprobs"),
        ({"token_ids": "none"}, {}, "return_token_ids or return_tokens_as_token_ids"),
        ({"system": "You are a helpful assistant."}, {}, "tokenized the prompt differently"),
        ({}, {"served_model": "Qwen/Qwen2.5-VL-7B-Instruct"}, r"serves \['base'\], not that"),
    ],
)
def test_a_server_that_would_bias_the_ratios_is_refused_with_the_fix(
    tiny_vl: Path, server_options: dict[str, Any], policy_options: dict[str, Any], error: str
) -> None:
    with served_tiny_model(tiny_vl, **server_options) as (server, _), pytest.raises(CuaError, match=error):
        QwenVLPolicy(str(tiny_vl), server=server.base_url, **OPTIONS, **policy_options).act([turn("e0", 0)])


def test_a_server_that_does_not_load_the_published_weights_is_refused(tiny_vl: Path, tmp_path: Path) -> None:
    with served_tiny_model(tiny_vl, ignore_loads=True) as (server, _):
        policy = QwenVLPolicy(str(tiny_vl), server=server.base_url, publish_dir=str(tmp_path / "p"), **OPTIONS)
        GRPOTrainer(policy, GRPOConfig(lora=True, lora_rank=4))
        rollout = copy.deepcopy(policy)
        rollout.load_published(policy.state_dict_for_publish(), 0)
        rollout.act([turn("e0", 0)])  # version 0: the adapter changes nothing yet
        move(policy, seed=1)
        rollout.load_published(policy.state_dict_for_publish(), 1)
        with pytest.raises(CuaError, match=r"version 1 sit .* loads the published weights"):
            rollout.act([turn("e1", 1)])


def test_a_server_that_names_token_ids_only_in_its_logprobs_is_enough(tiny_vl: Path) -> None:
    with served_tiny_model(tiny_vl, token_ids="as_token_ids") as (server, _):
        policy = QwenVLPolicy(str(tiny_vl), server=server.base_url, **OPTIONS)
        played = turn("e0", 0)
        decision = policy.act([played])[0]
        scored = policy.logprobs([Taken(played, decision)])[0].detach()
        torch.testing.assert_close(scored, torch.tensor(decision.logprobs), atol=1e-4, rtol=0)


def test_no_server_there_is_an_error_at_once() -> None:
    with pytest.raises(CuaError, match="cannot list its models"):
        QwenVLPolicy("unused", server="http://127.0.0.1:9/v1")


def vlm_config(tiny_vl: Path, **policy_options: Any) -> TrainConfig:
    """Two LoRA steps of the tiny VLM on sim:click-button, two turns an episode."""
    return TrainConfig.from_dict(
        {
            "env": "sim:click-button",
            "policy": "qwen-vl",
            "policy_options": {"model": str(tiny_vl), **OPTIONS, **policy_options},
            "trainer": TRAINER,
            "trainer_options": {"lr": 1e-3, "lora": True, "lora_rank": 4},
            "group_size": 2, "groups_per_step": 1, "workers": 2, "eval_workers": 1, "eval_episodes": 1,
            "steps": 2, "max_steps": 2, "train_variants": 2, "checkpoint_every": 1,
        }
    )  # fmt: skip


def test_a_multi_turn_vlm_run_trains_in_process_and_writes_a_model_the_hf_agent_loads(
    tiny_vl: Path, tmp_path: Path
) -> None:
    """``cua_bench_rl.train`` with the qwen-vl policy sampling in process: two-turn episodes, LoRA steps counted
    as versions, and the model folder at the end."""
    from cua_bench.agents.hf import HFAgent
    from cua_bench_rl.train import train

    result = train(vlm_config(tiny_vl), tmp_path / "run")
    assert result.status == "finished" and result.steps == 2, result
    rows = list(csv.DictReader((tmp_path / "run" / "curve.csv").open()))
    assert {r["policy_version"] for r in rows} == {"0", "1", "2"}
    assert (tmp_path / "run" / "model" / "adapter_config.json").is_file()
    HFAgent(model=str(tmp_path / "run" / "model"))  # loads as it is, with the prompt settings it was trained on


def test_a_training_run_samples_through_the_server_and_publishes_every_step(tiny_vl: Path, tmp_path: Path) -> None:
    """``cua_bench_rl.train`` with ``server=``: multi-turn episodes on real sim env servers, each optimiser step
    published to the server as a LoRA adapter, the rollouts after it sampled from it."""
    from cua_bench_rl.train import train

    with served_tiny_model(tiny_vl) as (server, _):
        served = vlm_config(tiny_vl, server=server.base_url, publish_dir=str(tmp_path / "served"))
        result = train(served, tmp_path / "run")
    assert result.status == "finished" and result.steps == 2, result
    loads = [Path(r["lora_path"]).name for r in server.requests if "lora_path" in r]
    assert loads == ["v0", "v1", "v2"]
    asked = chats(server)
    assert {r["model"] for r in asked} == {"served"} and len(asked) >= 2 * 2 * 2  # 2 steps x 2 episodes x 2 turns
    assert {images(r) for r in asked} == {1, 2}  # second turns carry the first's screenshot
    rows = list(csv.DictReader((tmp_path / "run" / "curve.csv").open()))
    assert {r["policy_version"] for r in rows} == {"0", "1", "2"}
