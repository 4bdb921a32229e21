"""GRPO's knobs: the grpo trainer's ``--trainer-option``s, as one typed config (``GRPOTrainer.Config``).

This module imports no torch: ``cua-bench-rl train`` types and checks the options against
``GRPOConfig`` before anything heavy loads, so a misspelt option or a wrong choice is refused in well
under a second. The choices are the maths' own (``cua_bench_rl.grpo``, which imports torch); the tests
hold the two equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from cua_bench_rl import TrainerConfig

__all__ = ["ADVANTAGE_SCALES", "BASELINES", "IMPORTANCE", "LOSS_NORMS", "GRPOConfig"]

ADVANTAGE_SCALES = ("group", "batch", "none")
LOSS_NORMS = ("token", "sequence")
BASELINES = ("mean", "leave_one_out")  # mean (GRPO) | leave_one_out (RLOO)
IMPORTANCE = ("token", "sequence")  # one ratio per token (GRPO, DAPO) | per sequence (GSPO)


@dataclass
class GRPOConfig(TrainerConfig):
    """GRPO's knobs (also RLOO's and GSPO's). Every field can be set from the command line or the run's config file."""

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
