"""GRPO on torch: group-relative advantages, the clipped loss, AdamW; full fine-tuning or LoRA.

The maths is cua-bench-rl's (``cua_bench_rl.grpo``), so every trainer means the same numbers by
"GRPO"; this module only feeds it. One ``train_step`` takes a batch of groups through
``epochs_per_batch`` passes; each pass splits the batch's turns into updates of
``micro_batch * grad_accumulation`` turns, and each update is one AdamW step whose gradient is
accumulated over micro-batches of ``micro_batch`` turns. Each micro-batch's loss is weighted by its
share of the update (its tokens for ``loss_norm=token``, its turns for ``sequence``), so the
accumulated gradient is the gradient of the whole update's loss, whatever the micro-batch size.

``step`` counts ``train_step`` calls (one per batch of groups, which is what policy versions and
checkpoints count), including a call whose groups all had zero spread: that call takes no
optimiser step and says so (``groups_used=0``, ``optimizer_steps=0``).

Dropout is switched off (``eval()``) while scoring, so the first pass's ratio is 1 up to float noise.

Importing this module loads no torch (each method imports what it uses): the plugin registers
``GRPOTrainer`` when the trainers are listed, and ``cua-bench-rl train`` checks ``--trainer-option``
against ``GRPOTrainer.Config`` (:class:`cua_trainer_grpo.config.GRPOConfig`) before anything heavy loads.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import math
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from cua_bench_rl import Group, Policy, Taken, Trainer
from cua_core import CuaError
from cua_trainer_grpo.config import GRPOConfig
from cua_trainer_grpo.policies import ScoresEntropy

if TYPE_CHECKING:
    import torch

__all__ = ["GRPOTrainer"]

log = logging.getLogger(__name__)

_FIGURES = ("loss", "pg_loss", "kl", "clip_fraction", "ratio_mean", "entropy")


class GRPOTrainer(Trainer):
    """``GRPOTrainer(policy, config, reference=None)``; ``reference`` (frozen) is used when ``kl_coef > 0``.

    With ``kl_coef > 0`` and no reference given, the reference is the policy with its LoRA adapter
    switched off (no copy), or a frozen deep copy of the policy for full fine-tuning.
    """

    name: ClassVar[str] = "grpo"
    Config: ClassVar[type[GRPOConfig]] = GRPOConfig
    config: GRPOConfig

    def __init__(self, policy: Policy, config: GRPOConfig, reference: Policy | None = None) -> None:
        import torch

        from cua_trainer_grpo.lora import wrap_lora

        super().__init__(policy, config, reference)
        module = policy.trainable()
        if not isinstance(module, torch.nn.Module):
            raise CuaError(
                f"{type(policy).__name__}.trainable() returned a {type(module).__name__}: the grpo trainer "
                "optimises a torch module"
            )
        self.peft_model: Any = None
        self.targets: tuple[str, ...] = ()
        if config.lora:
            self.peft_model, self.targets = wrap_lora(policy, config)
            module = self.peft_model
        self.module: torch.nn.Module = module
        self.trainable_parameters = [p for p in module.parameters() if p.requires_grad]
        if not self.trainable_parameters:
            raise CuaError(f"{type(policy).__name__} has no trainable parameters (every one has requires_grad=False)")
        self.optimizer = torch.optim.AdamW(self.trainable_parameters, lr=config.lr, weight_decay=config.weight_decay)
        if config.entropy_coef > 0 and not isinstance(policy, ScoresEntropy):
            raise CuaError(
                f"entropy_coef={config.entropy_coef} needs each token's entropy, and {type(policy).__name__} has no "
                "logprobs_and_entropy(taken); set entropy_coef=0 or use a policy that scores entropy"
            )
        self._reference_is_base = False
        if config.kl_coef > 0:
            if reference is None and self.peft_model is not None:
                self._reference_is_base = True
            elif reference is None:
                self.reference = copy.deepcopy(policy)
            if self.reference is not None:
                frozen = self.reference.trainable()
                if isinstance(frozen, torch.nn.Module):
                    frozen.eval()
                    frozen.requires_grad_(False)

    # -- one step ---------------------------------------------------------------------------

    def informative(self, group: Group) -> bool:
        """A group whose episodes all scored the same has zero advantages: no gradient."""
        return len(set(group.rewards)) > 1

    def train_step(self, groups: Sequence[Group]) -> dict[str, float]:
        from cua_bench_rl import flatten, group_advantages

        if not groups:
            raise ValueError("train_step needs at least one group")
        started = time.monotonic()
        config = self.config
        advantages, dropped = group_advantages(
            [g.rewards for g in groups],
            scale=config.advantage_scale,
            eps=config.advantage_eps,
            baseline=config.advantage_baseline,
        )
        kept = [(t, a) for t, a in flatten(groups, advantages) if t.decision.tokens]
        samples = [(t, a) for t, a in kept if not (config.mask_truncated and t.decision.truncated)]
        figures: dict[str, float] = dict.fromkeys(_FIGURES, 0.0)
        figures.update(
            grad_norm=0.0,
            groups_used=float(len(groups) - dropped),
            groups_dropped=float(dropped),
            turns=float(len(samples)),
            turns_truncated=float(len(kept) - len(samples)),
            tokens=float(sum(len(t.decision.tokens) for t, _ in samples)),
            optimizer_steps=0.0,
            skipped_nonfinite=0.0,
        )
        if not samples:
            why = (
                "every group had zero reward spread"
                if dropped == len(groups)
                else "no kept turn had tokens, or every one was cut off at the token limit"
            )
            log.warning(
                "after step %d: no optimiser step: %s (%d of %d groups dropped)", self.step, why, dropped, len(groups)
            )
            figures["seconds"] = time.monotonic() - started
            return figures
        self.module.eval()
        sums = dict.fromkeys(_FIGURES, 0.0)
        weight_total = 0.0
        norms: list[float] = []
        per_update = config.micro_batch * config.grad_accumulation
        for _ in range(config.epochs_per_batch):
            for start in range(0, len(samples), per_update):
                update = samples[start : start + per_update]
                norm, stats, weight = self._update(update)
                for name in _FIGURES:
                    sums[name] += stats[name]
                weight_total += weight
                if norm is None:
                    figures["skipped_nonfinite"] += 1
                else:
                    norms.append(norm)
                    figures["optimizer_steps"] += 1
        for name in _FIGURES:
            figures[name] = sums[name] / weight_total
        if figures["optimizer_steps"]:  # the version counts weights that moved, not calls
            self.step += 1
        figures["grad_norm"] = sum(norms) / len(norms) if norms else float("nan")
        figures["seconds"] = time.monotonic() - started
        return figures

    def _update(self, update: list[tuple[Taken, float]]) -> tuple[float | None, dict[str, float], float]:
        """One optimiser step over ``update``; (grad norm or None when not finite, weighted figures, weight)."""
        import torch

        config = self.config
        by_tokens = config.loss_norm == "token"
        total = sum(len(t.decision.tokens) for t, _ in update) if by_tokens else len(update)
        self.optimizer.zero_grad(set_to_none=True)
        sums = dict.fromkeys(_FIGURES, 0.0)
        for start in range(0, len(update), config.micro_batch):
            micro = update[start : start + config.micro_batch]
            share = (sum(len(t.decision.tokens) for t, _ in micro) if by_tokens else len(micro)) / total
            loss, stats = self._micro_batch(micro)
            torch.autograd.backward(loss * share)
            for name in _FIGURES:
                sums[name] += stats[name] * share
        if config.max_grad_norm > 0:
            norm = float(torch.nn.utils.clip_grad_norm_(self.trainable_parameters, config.max_grad_norm))
        else:
            grads = [p.grad.detach().norm() for p in self.trainable_parameters if p.grad is not None]
            norm = float(torch.stack(grads).norm()) if grads else 0.0
        if not math.isfinite(norm):
            log.warning("step %d: gradient norm is %s; this update is skipped", self.step, norm)
            self.optimizer.zero_grad(set_to_none=True)
            return None, sums, 1.0
        self.optimizer.step()
        return norm, sums, 1.0

    def _micro_batch(self, micro: list[tuple[Taken, float]]) -> tuple[torch.Tensor, dict[str, float]]:
        import torch

        from cua_bench_rl import pad, policy_loss

        config = self.config
        taken = [t for t, _ in micro]
        entropies: list[Any] | None = None
        if config.entropy_coef > 0:
            assert isinstance(self.policy, ScoresEntropy)  # checked in __init__
            new, entropies = self.policy.logprobs_and_entropy(taken)
        else:
            new = self.policy.logprobs(taken)
        _check_scores(self.policy, taken, new, "logprobs")
        logprobs, mask = pad(new)
        device, dtype = logprobs.device, logprobs.dtype
        old, _ = pad([torch.tensor(t.decision.logprobs, dtype=dtype, device=device) for t in taken])
        advantages = torch.tensor([a for _, a in micro], dtype=dtype, device=device)
        reference = None
        if config.kl_coef > 0:
            with torch.no_grad(), self._reference() as scorer:
                ref = scorer.logprobs(taken)
            _check_scores(scorer, taken, ref, "reference logprobs")
            reference, _ = pad([r.detach().to(device=device, dtype=dtype) for r in ref])
        loss, stats = policy_loss(
            logprobs,
            old,
            advantages,
            mask,
            clip_low=config.clip_low,
            clip_high=config.clip_high,
            norm=config.loss_norm,
            ref_logprobs=reference,
            kl_coef=config.kl_coef,
            importance=config.importance,
        )
        stats["entropy"] = 0.0
        if entropies is not None:
            _check_scores(self.policy, taken, entropies, "entropies")
            padded, _ = pad([e.to(device=device, dtype=dtype) for e in entropies])
            entropy = _normalise(padded, mask, config.loss_norm)
            loss = loss - config.entropy_coef * entropy
            stats["entropy"] = float(entropy.detach())
            stats["loss"] = float(loss.detach())
        return loss, stats

    @contextlib.contextmanager
    def _reference(self) -> Iterator[Policy]:
        if self._reference_is_base:
            with self.peft_model.disable_adapter():
                yield self.policy
        else:
            assert self.reference is not None
            yield self.reference

    # -- checkpoints ------------------------------------------------------------------------

    def _meta(self) -> dict[str, Any]:
        from cua_trainer_grpo import checkpoint

        policy = type(self.policy)
        return {
            "format": checkpoint.FORMAT,
            "trainer": self.name,
            "step": self.step,
            "policy": f"{policy.__module__}.{policy.__qualname__}",
            "lora": self.config.lora,
            "lora_rank": self.config.lora_rank if self.config.lora else None,
            "lora_alpha": self.config.lora_alpha if self.config.lora else None,
            "lora_targets": list(self.targets),
            "config": self.config.to_dict(),
            "trainable_parameters": sum(p.numel() for p in self.trainable_parameters),
        }

    def save(self, folder: Path) -> None:
        from cua_trainer_grpo import checkpoint

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        checkpoint.save_weights(folder, self.module, self.config.lora)
        checkpoint.save_optimizer(folder, self.optimizer)
        checkpoint.save_rng(folder)
        checkpoint.write_json(folder / checkpoint.STATE_FILE, self._meta())  # last: its presence marks a whole save

    def load(self, folder: Path) -> None:
        from cua_trainer_grpo import checkpoint

        folder = Path(folder)
        saved = checkpoint.read_meta(folder)
        checkpoint.check_compatible(saved, self._meta(), folder)
        checkpoint.load_weights(folder, self.module, self.config.lora)
        checkpoint.load_optimizer(folder, self.optimizer)
        for group in self.optimizer.param_groups:  # settings that may change on resume apply from now
            group["lr"], group["weight_decay"] = self.config.lr, self.config.weight_decay
        checkpoint.load_rng(folder)
        self.step = int(saved["step"])


def _check_scores(policy: object, taken: Sequence[Taken], scores: Sequence[Any], what: str) -> None:
    """A policy's scores must line up with the decisions' tokens; say which turn does not."""
    import torch

    if len(scores) != len(taken):
        raise CuaError(f"{type(policy).__name__}.{what} returned {len(scores)} tensors for {len(taken)} turns")
    for i, (t, s) in enumerate(zip(taken, scores, strict=True)):
        if not isinstance(s, torch.Tensor) or s.dim() != 1 or s.shape[0] != len(t.decision.tokens):
            shape = list(s.shape) if isinstance(s, torch.Tensor) else type(s).__name__
            raise CuaError(
                f"{type(policy).__name__}.{what}: turn {i} (episode {t.turn.episode}, step {t.turn.step}) has "
                f"{len(t.decision.tokens)} tokens but its scores are {shape}; return one 1-D tensor per turn"
            )


def _normalise(values: torch.Tensor, mask: torch.Tensor, norm: str) -> torch.Tensor:
    """Mean over real tokens the way ``policy_loss`` normalises (token: all at once; sequence: per row first)."""
    weight = mask.to(values.dtype)
    if norm == "token":
        return (values * weight).sum() / weight.sum()
    counts = weight.sum(dim=1)
    present = counts > 0
    return ((values * weight).sum(dim=1)[present] / counts[present]).mean()
