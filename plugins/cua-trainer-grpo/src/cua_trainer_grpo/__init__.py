"""cua-trainer-grpo: GRPO on torch for cua-bench-rl (full fine-tuning or LoRA through peft), a
Qwen-VL policy, and publishing weights to the rollout side (an in-process copy or a vLLM/SGLang server).

Importing this package is cheap: the plugin module (entry point group ``cua_bench_rl``) and these
names load torch, transformers and peft only when used (``GRPOConfig``, the trainer's options, and the
``GRPOTrainer`` class itself load none).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cua_trainer_grpo.config import GRPOConfig
    from cua_trainer_grpo.policies.vlm import QwenVLPolicy
    from cua_trainer_grpo.publish import InProcessPublisher, ServerPublisher
    from cua_trainer_grpo.trainer import GRPOTrainer

__all__ = ["GRPOConfig", "GRPOTrainer", "InProcessPublisher", "QwenVLPolicy", "ServerPublisher"]

_HOMES = {
    "GRPOConfig": "cua_trainer_grpo.config",
    "GRPOTrainer": "cua_trainer_grpo.trainer",
    "InProcessPublisher": "cua_trainer_grpo.publish",
    "ServerPublisher": "cua_trainer_grpo.publish",
    "QwenVLPolicy": "cua_trainer_grpo.policies.vlm",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'cua_trainer_grpo' has no attribute {name!r}")
