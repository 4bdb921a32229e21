"""A tiny policy for tests of the RL loop: a learnable distribution over a grid of click points.

It sees nothing (``Observes(screenshot="none")``), so it can only learn where buttons tend to be;
that is enough to test rollouts, trainers, checkpoints and resumes quickly and deterministically.
One token per turn: the grid cell clicked, followed by Done.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from cua_bench import Observes
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Taken, Turn
from cua_core.actions import Click, Done, Point

__all__ = ["GridClickPolicy"]


class GridClickPolicy(Policy, torch.nn.Module):
    observes = Observes(screenshot="none")

    def __init__(self, side: int = 8, seed: int = 0) -> None:
        torch.nn.Module.__init__(self)
        self.side = side
        self.logits = torch.nn.Parameter(torch.zeros(side * side))
        self.generator = torch.Generator().manual_seed(seed)

    def _point(self, cell: int) -> Point:
        step = 1000 / self.side
        return Point((cell % self.side + 0.5) * step, (cell // self.side + 0.5) * step)

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        with torch.no_grad():
            logp = torch.log_softmax(self.logits, -1)
            decisions = []
            for _ in turns:
                cell = int(logp.argmax()) if greedy else int(torch.multinomial(logp.exp(), 1, generator=self.generator))
                decisions.append(Decision([Click(self._point(cell)), Done()], [cell], [float(logp[cell])]))
        return decisions

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        logp = torch.log_softmax(self.logits, -1)
        return [logp[torch.tensor(t.decision.tokens)] for t in taken]
