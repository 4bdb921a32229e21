"""What the small policies share: a categorical over a variable number of choices per turn.

Each turn has its own number of choices (options of an a11y tree, cells of a click grid), so scores
come as one padded ``[turns, choices]`` tensor with a mask; sampling, greedy choice, the log-prob of
a chosen index and the entropy all read the same masked log-softmax, which is what makes ``act``'s
log-probs and ``logprobs``' recomputation the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

__all__ = ["choose", "entropy_of", "log_softmax_masked", "pad_scores", "picked", "seed_or_drawn", "with_floor"]


def pad_scores(scores: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """1-D score vectors of different lengths -> ([n, longest] padded with 0, [n, longest] bool mask)."""
    longest = max(int(s.shape[0]) for s in scores)
    padded = scores[0].new_zeros((len(scores), longest))
    mask = torch.zeros((len(scores), longest), dtype=torch.bool, device=padded.device)
    for i, s in enumerate(scores):
        padded[i, : s.shape[0]] = s
        mask[i, : s.shape[0]] = True
    return padded, mask


def log_softmax_masked(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.log_softmax(scores, dim=-1)


def with_floor(logp: torch.Tensor, share: float) -> torch.Tensor:
    """The log of ``(1 - share) * p + share * uniform`` over each row's valid (finite) entries.

    An exploration floor that is part of the policy, so sampled log-probs and recomputed ones agree and
    the importance ratio stays exact. Why: GRPO learns nothing from a group whose episodes all score the
    same, so a state where the policy has become sure of a wrong action is never corrected; a floor keeps
    every option reachable there."""
    if share <= 0:
        return logp
    valid = torch.isfinite(logp)
    count = valid.sum(dim=-1, keepdim=True).clamp_min(1)
    floor = torch.log(share / count).expand_as(logp)
    mixed = torch.logaddexp(logp + math.log1p(-share), floor)
    return torch.where(valid, mixed, logp)


def choose(logp: torch.Tensor, greedy: bool, generator: torch.Generator | None = None) -> torch.Tensor:
    """One index per row: the most likely (greedy; ties go to the lowest index) or a sample."""
    if greedy:
        return logp.argmax(dim=-1)
    return torch.multinomial(logp.exp(), 1, generator=generator).squeeze(-1)


def picked(logp: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return logp.gather(-1, index.unsqueeze(-1)).squeeze(-1)


def entropy_of(logp: torch.Tensor) -> torch.Tensor:
    """Per row; masked entries (-inf) contribute nothing."""
    p = logp.exp()
    return -(p * torch.where(torch.isfinite(logp), logp, torch.zeros_like(logp))).sum(dim=-1)


def seed_or_drawn(seed: int | None) -> int:
    """``seed``, or one drawn from torch's generator (which ``cua_bench_rl.train`` seeds with the run's
    seed), so a policy built without one still follows the run's ``--seed``."""
    return int(torch.randint(0, 2**62, ()).item()) if seed is None else int(seed)
