"""The trainer contract: one optimisation step on GRPO groups, checkpoints, and publishing weights.

Trainers are plugins (hook ``cua_bench_rl_register_trainers``); ``cua-trainer-grpo`` is the built-in
one. The training loop (``cua_bench_rl.train``) owns rollouts, the replay buffer and the run folder,
and calls a trainer only through this contract.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Group
from cua_core.options import typed_options

__all__ = ["ADVANTAGE_SCALES", "BASELINES", "IMPORTANCE", "LOSS_NORMS", "Trainer", "TrainerConfig"]

ADVANTAGE_SCALES = ("group", "batch", "none")
LOSS_NORMS = ("token", "sequence")
# Here, not in cua_bench_rl.grpo (which imports torch): options are checked before anything heavy loads.
BASELINES = ("mean", "leave_one_out")  # mean (GRPO) | leave_one_out (RLOO)
IMPORTANCE = ("token", "sequence")  # one ratio per token (GRPO, DAPO) | per sequence (GSPO)


@dataclass
class TrainerConfig:
    """GRPO's knobs. Every field can be set from the command line or the run's config file."""

    lr: float = 1e-4
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    grad_accumulation: int = 1  # micro-batches per optimiser step
    micro_batch: int = 64  # turns per forward/backward
    epochs_per_batch: int = 1  # optimiser passes over each batch of groups (ratio != 1 after the first)
    clip_low: float = 0.2
    clip_high: float = 0.2
    advantage_scale: str = "group"  # group | batch | none
    advantage_baseline: str = "mean"  # mean (GRPO) | leave_one_out (RLOO: set advantage_scale none too)
    importance: str = "token"  # token (GRPO, DAPO) | sequence (GSPO: one ratio per sequence)
    mask_truncated: bool = True  # leave out answers cut off at the token limit (Decision.truncated)
    advantage_eps: float = 1e-6
    loss_norm: str = "token"  # token | sequence
    kl_coef: float = 0.0  # > 0 keeps a frozen reference policy and adds its KL (k3 estimator)
    entropy_coef: float = 0.0
    lora: bool = False  # LoRA through peft instead of full fine-tuning (policies that support it)
    lora_rank: int = 8
    lora_alpha: int = 16
    lora_targets: tuple[str, ...] = ()  # module names; () lets the policy choose

    def __post_init__(self) -> None:
        if self.advantage_scale not in ADVANTAGE_SCALES:
            raise ValueError(
                f"advantage_scale must be one of {', '.join(ADVANTAGE_SCALES)}, got {self.advantage_scale!r}"
            )
        for name, allowed in (("advantage_baseline", BASELINES), ("importance", IMPORTANCE)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}")
        if self.loss_norm not in LOSS_NORMS:
            raise ValueError(f"loss_norm must be one of {', '.join(LOSS_NORMS)}, got {self.loss_norm!r}")
        for name in ("grad_accumulation", "micro_batch", "epochs_per_batch"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.lr <= 0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        self.lora_targets = tuple(self.lora_targets)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainerConfig:
        return cls(**typed_options(cls, data, what="trainer option"))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["lora_targets"] = list(self.lora_targets)
        return data


class Trainer(ABC):
    """Updates ``policy`` from groups of episodes. ``reference`` is the frozen policy of the KL term
    (``kl_coef > 0``); left None, the trainer makes its own (a LoRA trainer: the base, adapter off)."""

    name: ClassVar[str]

    def __init__(self, policy: Policy, config: TrainerConfig, reference: Policy | None = None) -> None:
        self.policy = policy
        self.config = config
        self.reference = reference
        self.step = 0  # optimiser steps taken (the policy version), kept in checkpoints

    @abstractmethod
    def train_step(self, groups: Sequence[Group]) -> dict[str, float]:
        """One optimiser step (``grad_accumulation`` micro-batches) on ``groups``; returns its figures:
        at least ``loss``, ``kl``, ``clip_fraction``, ``groups_used`` and ``groups_dropped`` (zero spread).
        ``step`` advances only when the weights moved: a call that took no optimiser step leaves it."""

    def informative(self, group: Group) -> bool:
        """Whether ``group`` can move the policy. The loop replaces groups that cannot with newly played
        ones (``TrainConfig.resample_limit``) instead of spending a step on them. Every group can, unless
        the trainer says otherwise."""
        return True

    @abstractmethod
    def save(self, folder: Path) -> None:
        """Write model (or adapter), optimiser and ``step`` under ``folder`` (which exists and is empty)."""

    @abstractmethod
    def load(self, folder: Path) -> None:
        """Restore what ``save`` wrote, so the next ``train_step`` continues exactly."""
