"""GRPO's maths: group-relative advantages, the clipped policy loss, and the batching helpers.

One implementation every trainer plugin shares, so "GRPO" means the same numbers whichever trainer
runs it, and so the numbers can be checked by hand in tests. Advantages follow TRL's GRPOTrainer
(sample std, n-1); ``norm="token"`` is DAPO's token-level mean (long answers are not down-weighted
per token), ``norm="sequence"`` the original GRPO's per-sequence mean. The KL term is Schulman's k3
estimator, unbiased and always >= 0.

This module imports torch; ``cua_bench_rl`` itself does not import it, so rollouts run without torch.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import torch
from torch import Tensor

from cua_bench_rl.rollouts import Group, Taken

__all__ = [
    "BASELINES",
    "IMPORTANCE",
    "LOG_RATIO_CLAMP",
    "NORMS",
    "SCALES",
    "flatten",
    "group_advantages",
    "pad",
    "policy_loss",
]

# What the maths can do. A trainer's options name these (cua-trainer-grpo's GRPOConfig checks them
# without torch, its tests hold them equal to these).
SCALES = ("group", "batch", "none")
NORMS = ("token", "sequence")
BASELINES = ("mean", "leave_one_out")  # mean (GRPO) | leave_one_out (RLOO)
IMPORTANCE = ("token", "sequence")  # one ratio per token (GRPO, DAPO) | per sequence (GSPO)
_NOT_TRAINED = ("aborted", "failed")


def group_advantages(
    groups: Sequence[Sequence[float]], *, scale: str = "group", eps: float = 1e-6, baseline: str = "mean"
) -> tuple[list[list[float] | None], int]:
    """Each episode's advantage: (reward - baseline) / (s + eps), where s is the group's sample standard
    deviation (n-1, as TRL) for scale="group", the sample std of every reward in the batch (all groups)
    for scale="batch", and s=1 (eps not added) for scale="none". The baseline is the group's mean
    (baseline="mean": GRPO) or the mean of the *other* episodes of the group ("leave_one_out": RLOO,
    unbiased; it equals n/(n-1) times GRPO's centring, and RLOO is usually run with scale="none").

    A group whose rewards are all equal (zero spread) teaches nothing relative to itself: it gets
    None and is counted in the returned int (dropped groups). Raises ValueError on an unknown scale,
    an empty group, or a group of 1."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    if baseline not in BASELINES:
        raise ValueError(f"baseline must be one of {', '.join(BASELINES)}, got {baseline!r}")
    if eps < 0 or math.isnan(eps):
        raise ValueError(f"eps must be >= 0, got {eps!r}")
    rewards: list[list[float]] = []
    for i, group in enumerate(groups):
        if len(group) < 2:
            what = "empty" if not group else "a group of 1"
            raise ValueError(
                f"groups[{i}] is {what}: GRPO compares the episodes of a group with each other, "
                "so each group needs at least 2 rewards (raise the group size)"
            )
        values = [float(r) for r in group]
        if any(math.isnan(r) for r in values):
            raise ValueError(f"groups[{i}] holds a NaN reward: {values}")
        rewards.append(values)
    batch_std = 0.0
    if scale == "batch":
        everything = [r for values in rewards for r in values]
        batch_std = statistics.stdev(everything) if len(everything) > 1 else 0.0
    out: list[list[float] | None] = []
    dropped = 0
    for values in rewards:
        if max(values) == min(values):
            out.append(None)
            dropped += 1
            continue
        mean = statistics.fmean(values)
        n = len(values)
        centred = [r - mean for r in values] if baseline == "mean" else [r - (n * mean - r) / (n - 1) for r in values]
        if scale == "group":
            denominator = statistics.stdev(values) + eps
        elif scale == "batch":
            denominator = batch_std + eps
        else:
            denominator = 1.0
        out.append([c / denominator for c in centred])
    return out, dropped


LOG_RATIO_CLAMP = 20.0


def policy_loss(
    logprobs: Tensor,
    old_logprobs: Tensor,
    advantages: Tensor,
    mask: Tensor,
    *,
    clip_low: float = 0.2,
    clip_high: float = 0.2,
    norm: str = "token",
    ref_logprobs: Tensor | None = None,
    kl_coef: float = 0.0,
    log_ratio_clamp: float = LOG_RATIO_CLAMP,
    importance: str = "token",
) -> tuple[Tensor, dict[str, float]]:
    """ratio = exp(logprobs - old_logprobs); per token: -min(ratio*A, clamp(ratio, 1-clip_low, 1+clip_high)*A).

    ``logprobs`` [B, T] (with grad), ``old_logprobs`` [B, T] (the sampling policy's), ``advantages``
    [B] (one per sequence: every turn of an episode carries the episode's advantage), ``mask`` [B, T]
    (1 or True for real tokens, 0 for padding; padded positions never reach the loss, whatever they hold).

    norm="token": sum over all real tokens of the batch / number of real tokens (DAPO's token-level);
    norm="sequence": mean over each sequence's real tokens, then mean over the sequences that have any.
    KL (when ref_logprobs is given and kl_coef > 0): Schulman's k3 per token,
    exp(ref - logprobs) - (ref - logprobs) - 1, normalised the same way, added as kl_coef * kl
    (reported whenever ref_logprobs is given). Gradient flows to ``logprobs`` only.

    importance="sequence" is GSPO's: one ratio per sequence, s = exp(mean of its real tokens' log-ratios)
    (the geometric mean of the token ratios), clipped and weighed by the advantage once per sequence:
    -min(s*A, clamp(s, 1-clip_low, 1+clip_high)*A), averaged over the sequences that have tokens (``norm``
    does not apply; the KL term does, as above). clip_fraction and ratio_mean are then per sequence.

    Both log-ratios are clamped to [-log_ratio_clamp, log_ratio_clamp] before exp: a token the updated
    policy no longer samples (outside its top-p nucleus: log-prob -inf) gives a ratio of e^-20, not
    a NaN, and a KL that overflowed would poison the whole step.

    Returns (loss, {"loss", "pg_loss", "kl", "clip_fraction", "ratio_mean"}) (floats, detached).
    clip_fraction = share of real tokens where clipping changed the objective (A > 0 and ratio >
    1+clip_high, or A < 0 and ratio < 1-clip_low). Raises ValueError on mismatched shapes, an empty
    mask or an unknown norm."""
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {', '.join(NORMS)}, got {norm!r}")
    if importance not in IMPORTANCE:
        raise ValueError(f"importance must be one of {', '.join(IMPORTANCE)}, got {importance!r}")
    if clip_low < 0 or clip_high < 0:
        raise ValueError(f"clip_low and clip_high must be >= 0, got {clip_low!r} and {clip_high!r}")
    if kl_coef < 0:
        raise ValueError(f"kl_coef must be >= 0, got {kl_coef!r}")
    if logprobs.dim() != 2:
        raise ValueError(f"logprobs must be [B, T] (pad the sequences with grpo.pad), got shape {list(logprobs.shape)}")
    shape = logprobs.shape
    named = {"old_logprobs": old_logprobs, "mask": mask}
    if ref_logprobs is not None:
        named["ref_logprobs"] = ref_logprobs
    for name, tensor in named.items():
        if tensor.shape != shape:
            raise ValueError(f"{name} has shape {list(tensor.shape)}, logprobs {list(shape)}: they must match")
    if advantages.shape != (shape[0],):
        raise ValueError(
            f"advantages must be [B] = [{shape[0]}] (one per sequence), got shape {list(advantages.shape)}"
        )
    real = mask.detach() > 0
    tokens = real.sum()
    if int(tokens) == 0:
        raise ValueError("mask has no real tokens: there is nothing to train on (check the padding mask)")
    weight = real.to(logprobs.dtype)

    def normalise(per_token: Tensor) -> Tensor:
        if norm == "token":
            return (per_token * weight).sum() / tokens
        counts = weight.sum(dim=1)
        present = counts > 0
        per_sequence = (per_token * weight).sum(dim=1)[present] / counts[present]
        return per_sequence.mean()

    # Padded positions may hold anything (even -inf): zero their log-ratio before exp.
    zero = torch.zeros((), dtype=logprobs.dtype, device=logprobs.device)
    log_ratio = torch.where(real, logprobs - old_logprobs.detach(), zero).clamp(-log_ratio_clamp, log_ratio_clamp)
    adv = advantages.detach().to(logprobs.dtype)[:, None]
    if importance == "sequence":
        counts = weight.sum(dim=1)
        present = counts > 0
        ratio = torch.exp((log_ratio * weight).sum(dim=1, keepdim=True) / counts.clamp(min=1)[:, None])  # [B, 1]
        unclipped = ratio * adv
        clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high) * adv
        pg_loss = (-torch.minimum(unclipped, clipped))[present].mean()
    else:
        ratio = torch.exp(log_ratio)
        unclipped = ratio * adv
        clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high) * adv
        pg_loss = normalise(-torch.minimum(unclipped, clipped))
    loss = pg_loss
    kl_value = 0.0
    if ref_logprobs is not None:
        delta = torch.where(real, ref_logprobs.detach() - logprobs, zero).clamp(-log_ratio_clamp, log_ratio_clamp)
        kl = normalise(torch.exp(delta) - delta - 1.0)
        kl_value = float(kl.detach())
        if kl_coef > 0:
            loss = pg_loss + kl_coef * kl
    with torch.no_grad():
        was_clipped = ((adv > 0) & (ratio > 1.0 + clip_high)) | ((adv < 0) & (ratio < 1.0 - clip_low))
        if importance == "sequence":
            clip_fraction = float(was_clipped[present].float().mean())
            ratio_mean = float(ratio[present].mean())
        else:
            clip_fraction = float((was_clipped & real).sum() / tokens)
            ratio_mean = float((ratio * weight).sum() / tokens)
    metrics = {
        "loss": float(loss.detach()),
        "pg_loss": float(pg_loss.detach()),
        "kl": kl_value,
        "clip_fraction": clip_fraction,
        "ratio_mean": ratio_mean,
    }
    return loss, metrics


def flatten(groups: Sequence[Group], advantages: Sequence[Sequence[float] | None]) -> list[tuple[Taken, float]]:
    """(turn as played, advantage) for every turn of every kept group, in order.

    ``advantages`` is ``group_advantages``'s first result for the same groups; dropped groups (None)
    contribute nothing. Every turn of an episode carries its episode's advantage. Aborted and failed
    episodes must never be in a group (their reward says nothing about the policy): one is an error."""
    if len(groups) != len(advantages):
        raise ValueError(f"{len(groups)} groups but {len(advantages)} advantage lists: pass one per group")
    samples: list[tuple[Taken, float]] = []
    for g, (group, values) in enumerate(zip(groups, advantages, strict=True)):
        if values is None:
            continue
        if len(values) != len(group.episodes):
            raise ValueError(
                f"groups[{g}] ({group.task.key}) has {len(group.episodes)} episodes but {len(values)} advantages"
            )
        for episode, advantage in zip(group.episodes, values, strict=True):
            if episode.status in _NOT_TRAINED:
                raise ValueError(
                    f"episode {episode.id} of groups[{g}] ({group.task.key}) is {episode.status}: such episodes are "
                    "not trained on and must not be put in a group"
                )
            samples.extend((taken, float(advantage)) for taken in episode.turns)
    return samples


def pad(sequences: Sequence[Tensor], value: float = 0.0) -> tuple[Tensor, Tensor]:
    """Right-pad 1-D tensors into (padded [B, T], mask [B, T]); the mask is bool, True on real entries.

    ``T`` is the longest sequence (at least 1, so an all-empty batch still has a shape)."""
    if not sequences:
        raise ValueError("pad needs at least one sequence")
    first = sequences[0]
    for i, sequence in enumerate(sequences):
        if sequence.dim() != 1:
            raise ValueError(f"sequences[{i}] has shape {list(sequence.shape)}: pad takes 1-D tensors")
        if sequence.dtype != first.dtype or sequence.device != first.device:
            raise ValueError(
                f"sequences[{i}] is {sequence.dtype} on {sequence.device}, sequences[0] {first.dtype} on "
                f"{first.device}: pad tensors of one dtype and device"
            )
    padded = torch.nn.utils.rnn.pad_sequence(list(sequences), batch_first=True, padding_value=value)
    lengths = torch.tensor([int(s.shape[0]) for s in sequences], device=first.device)
    if padded.shape[1] == 0:  # every sequence empty: one padded column, all masked
        padded = torch.full((len(sequences), 1), value, dtype=first.dtype, device=first.device)
    mask = torch.arange(padded.shape[1], device=first.device)[None, :] < lengths[:, None]
    return padded, mask
