"""The policy contract: what rollouts ask of a model, and what a trainer asks of it.

A policy samples decisions for a batch of turns (``act``, no gradient), and scores given decisions
under its current weights (``logprobs``, with gradient) so a trainer can form the importance ratio.
It declares what it observes exactly as a cua-bench agent does, and carries the version of its
weights, which the dataloader stamps on every decision.

Policies are torch modules in practice, but this contract does not import torch: rollouts run
without it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from cua_bench import Observes
from cua_bench_rl.rollouts import Decision, Taken, Turn

__all__ = ["Policy"]


class Policy(ABC):
    observes: Observes = Observes()
    version: int = 0

    @abstractmethod
    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        """Sample one decision per turn (in order), with the tokens' log-probabilities. No gradient.

        ``greedy`` takes the most likely choice instead of sampling (evaluation)."""

    @abstractmethod
    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        """For each turn as played, a 1-D float tensor: the log-probability of each of its decision's
        ``tokens`` under the current weights, with gradient."""

    def trainable(self) -> Any:
        """The torch module whose parameters a trainer optimises (the policy itself by default)."""
        return self

    def state_dict_for_publish(self) -> dict[str, Any]:
        """The weights the rollout side needs (all of them; a LoRA policy returns only the adapter)."""
        return dict(self.trainable().state_dict())

    def load_published(self, weights: dict[str, Any], version: int) -> None:
        """Take weights published by a trainer; from now on decisions are stamped ``version``."""
        self.trainable().load_state_dict(weights)  # strict: weights that do not fit must not load as nothing
        self.version = version
