"""Publishing weights to the rollout side: an in-process copy, and a real HTTP server that serves the tiny
Qwen2.5-VL and reloads it through vLLM's LoRA API or SGLang's update_weights_from_disk."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from support.model_server import ModelServer, completion, model_server
from support.served_vlm import ServedTinyModel, served_tiny_model

from cua_core.errors import CuaError
from cua_trainer_grpo import GRPOConfig
from cua_trainer_grpo.policies.vlm import QwenVLPolicy
from cua_trainer_grpo.publish import InProcessPublisher, ServerPublisher
from cua_trainer_grpo.trainer import GRPOTrainer

PROMPT = [{"role": "user", "content": "Click the OK button."}]
REWARDS = [[1.0, 0.0, 0.0, 1.0]]


def test_in_process_publishing_copies_into_a_stable_rollout_copy(linear_policy: Any, make_groups: Any) -> None:
    policy = linear_policy()
    groups = make_groups(policy, REWARDS)
    trainer = GRPOTrainer(policy, GRPOConfig(lr=0.1))
    rollout = copy.deepcopy(policy)
    publisher = InProcessPublisher(rollout, lock=threading.Lock())
    trainer.train_step(groups)
    assert publisher(policy) == 1 and rollout.version == 1
    assert torch.equal(rollout.proj.weight, policy.proj.weight)
    published = rollout.proj.weight.detach().clone()
    trainer.train_step(groups)
    assert torch.equal(rollout.proj.weight, published)  # rollouts keep the published weights
    assert not torch.equal(rollout.proj.weight, policy.proj.weight)
    assert publisher.publish(policy, version=5) == 5 and torch.equal(rollout.proj.weight, policy.proj.weight)
    with pytest.raises(ValueError, match="only go up: version 4 after 5"):
        publisher.publish(policy, version=4)
    with pytest.raises(ValueError, match="separate copy"):
        InProcessPublisher(policy).publish(policy)


def next_token(processor: Any, model: Any) -> list[dict[str, Any]]:
    """The five likeliest first tokens of the answer to PROMPT, with their log-probabilities."""
    text = processor.apply_chat_template(PROMPT, add_generation_prompt=True, tokenize=False)
    ids = processor.tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        logp = torch.log_softmax(model(**ids).logits[0, -1].float(), dim=-1)
    top = torch.topk(logp, 5)
    return [{"token": int(i), "logprob": float(v)} for v, i in zip(top.values, top.indices, strict=True)]


def served(server: ModelServer, model: str) -> list[dict[str, Any]] | int:
    import json
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps({"model": model, "messages": PROMPT, "logprobs": True, "top_logprobs": 5}).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return list(json.loads(response.read())["choices"][0]["logprobs"]["content"][0]["top_logprobs"])
    except urllib.error.HTTPError as exc:
        return exc.code


def same(a: Any, b: Any) -> bool:
    return [t["token"] for t in a] == [t["token"] for t in b] and all(
        abs(x["logprob"] - y["logprob"]) < 1e-4 for x, y in zip(a, b, strict=True)
    )


def move(policy: QwenVLPolicy, which: str, seed: int) -> None:
    """Stand-in for optimiser steps: new values for the weights named ``which``."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in policy.model.named_parameters():
            if which in name:
                param.copy_(torch.randn(param.shape, generator=generator) * 0.5)


@pytest.fixture
def tiny_server(tiny_vl: Path) -> Iterator[tuple[ModelServer, ServedTinyModel]]:
    with served_tiny_model(tiny_vl) as served:
        yield served


def test_a_published_lora_adapter_is_what_the_vllm_shaped_server_serves(
    tiny_vl: Path, tmp_path: Path, tiny_server: tuple[ModelServer, ServedTinyModel]
) -> None:
    server, model = tiny_server
    policy = QwenVLPolicy(str(tiny_vl))
    GRPOTrainer(policy, GRPOConfig(lora=True, lora_rank=4))
    publisher = ServerPublisher(server.base_url, tmp_path / "policy", keep=1)
    base = served(server, "base")
    assert served(server, publisher.model_name) == 404  # nothing loaded under that name yet

    move(policy, "lora_B", seed=1)
    assert publisher(policy) == 1
    first = served(server, publisher.model_name)
    assert not same(first, base) and same(first, next_token(model.processor, policy.model))
    assert same(served(server, "base"), base)

    move(policy, "lora_B", seed=2)
    assert publisher.publish(policy) == 2
    second = served(server, publisher.model_name)
    assert not same(second, first) and same(second, next_token(model.processor, policy.model))
    loads = [r for r in server.requests if "lora_path" in r]
    assert [(r["lora_name"], Path(r["lora_path"]).name, r["load_inplace"]) for r in loads] == [
        ("policy", "v1", True),
        ("policy", "v2", True),
    ]
    assert sorted(p.name for p in (tmp_path / "policy").iterdir()) == ["v2"]  # keep=1


def test_a_vllm_without_load_inplace_gets_the_adapter_unloaded_and_loaded_again(tiny_vl: Path, tmp_path: Path) -> None:
    policy = QwenVLPolicy(str(tiny_vl))
    GRPOTrainer(policy, GRPOConfig(lora=True, lora_rank=4))
    with served_tiny_model(tiny_vl, old_vllm=True) as (server, model):
        publisher = ServerPublisher(server.base_url, tmp_path / "policy")
        move(policy, "lora_B", seed=1)
        publisher(policy)
        move(policy, "lora_B", seed=2)
        publisher(policy)
        assert same(served(server, "policy"), next_token(model.processor, policy.model))
        assert sum("lora_path" in r for r in server.requests) == 3  # refused once, then loaded after the unload


def test_full_weights_reach_an_sglang_shaped_server_from_disk(
    tiny_vl: Path, tmp_path: Path, tiny_server: tuple[ModelServer, ServedTinyModel]
) -> None:
    server, model = tiny_server
    policy = QwenVLPolicy(str(tiny_vl))
    base = served(server, "base")
    move(policy, "lm_head", seed=3)
    ServerPublisher(server.base_url, tmp_path / "weights").publish(policy, version=7)
    now = served(server, "base")
    assert not same(now, base) and same(now, next_token(model.processor, policy.model))
    assert model.weight_version == "7"
    from cua_data.adapters.sft import load_processor

    assert load_processor(tmp_path / "weights" / "v7").image_processor.size.longest_edge == 31360  # servable alone


def test_servers_that_cannot_or_will_not_reload_are_errors_naming_the_fix(tiny_vl: Path, tmp_path: Path) -> None:
    policy = QwenVLPolicy(str(tiny_vl))
    GRPOTrainer(policy, GRPOConfig(lora=True, lora_rank=4))
    no_reload_api = model_server(lambda body: (200, completion("")))
    with no_reload_api as server, pytest.raises(CuaError, match="VLLM_ALLOW_RUNTIME_LORA_UPDATING"):
        ServerPublisher(server.base_url, tmp_path / "a").publish(policy)
    refuse = {"/v1/load_lora_adapter": lambda body: (400, {"message": "max_loras (1) reached"})}
    with model_server(lambda body: (200, completion("")), refuse) as server:
        publisher = ServerPublisher(server.base_url, tmp_path / "b")
        with pytest.raises(CuaError, match=r"refused adapter 'b'.*\(400\).*max_loras \(1\) reached"):
            publisher.publish(policy)
        assert publisher.version == 0  # nothing was published
    with pytest.raises(CuaError, match="cannot reach the inference server"):
        ServerPublisher("http://127.0.0.1:9/v1", tmp_path / "c").publish(policy)
