"""LoRA through peft: wrap a policy's trainable module so only the adapter's weights train.

peft injects its LoRA layers into the wrapped module in place, so a policy that keeps calling its
own model (``generate``, a plain forward) runs through the adapter without knowing about peft; the
returned peft model is what saving and publishing the adapter alone need.
"""

from __future__ import annotations

from typing import Any

import torch

from cua_bench_rl import Policy
from cua_core import CuaError
from cua_trainer_grpo.config import GRPOConfig
from cua_trainer_grpo.policies import SuggestsLoraTargets, TakesTrainable

__all__ = ["lora_targets", "wrap_lora"]


def lora_targets(policy: Policy, config: GRPOConfig) -> tuple[str, ...]:
    """The configured targets, else the policy's suggestion; an error naming both ways when neither."""
    if config.lora_targets:
        return tuple(config.lora_targets)
    if isinstance(policy, SuggestsLoraTargets):
        suggested = tuple(policy.lora_targets())
        if suggested:
            return suggested
    raise CuaError(
        f"lora=true but {type(policy).__name__} suggests no LoRA target modules: set the trainer option "
        "lora_targets (module names such as q_proj,v_proj), or train without lora"
    )


def wrap_lora(policy: Policy, config: GRPOConfig) -> tuple[Any, tuple[str, ...]]:
    """(the peft model around ``policy.trainable()``, the target module names used)."""
    import peft

    module = policy.trainable()
    if not isinstance(module, torch.nn.Module):
        raise CuaError(f"{type(policy).__name__}.trainable() is a {type(module).__name__}, not a torch module")
    targets = lora_targets(policy, config)
    linear = sorted({name.rsplit(".", 1)[-1] for name, m in module.named_modules() if isinstance(m, torch.nn.Linear)})
    lora_config = peft.LoraConfig(
        r=config.lora_rank, lora_alpha=config.lora_alpha, target_modules=list(targets), lora_dropout=0.0, bias="none"
    )
    try:
        wrapped = peft.get_peft_model(module, lora_config)
    except ValueError as exc:
        raise CuaError(
            f"LoRA targets {', '.join(targets)} do not match {type(policy).__name__}'s modules ({exc}); "
            f"its linear layers are named: {', '.join(linear[:20]) or 'none'}"
        ) from exc
    if isinstance(policy, TakesTrainable):
        policy.use_trainable(wrapped)
    return wrapped, targets
