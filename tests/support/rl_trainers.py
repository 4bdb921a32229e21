"""A trainer for tests of the RL loop: the built-in GRPO trainer, recording what each step was given."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

import torch

from cua_bench_rl.rollouts import Group
from cua_trainer_grpo.trainer import GRPOTrainer

__all__ = ["RecordingTrainer"]


class RecordingTrainer(GRPOTrainer):
    """Appends ``{"step", "versions"}`` per train_step to the JSON-lines file ``$CUA_TEST_TRAINER_LOG``:
    the policy version it is about to train from, and each group's oldest version.

    The loop's mechanics are under test here (staleness, resume, lost workers, served rollouts), not
    learning, and the tiny policies rarely succeed: a step whose groups all scored alike (no GRPO
    gradient) is an optimiser step on the policy's entropy instead (the grid policy's), or on the
    played tokens' log-probabilities (any other policy), so the weights do move and the version is honest.
    """

    def informative(self, group: Group) -> bool:
        return True

    def train_step(self, groups: Sequence[Group]) -> dict[str, float]:
        path = os.environ.get("CUA_TEST_TRAINER_LOG")
        if path:
            with open(path, "a") as handle:
                handle.write(json.dumps({"step": self.step, "versions": [g.version for g in groups]}) + "\n")
        before = self.step
        figures = super().train_step(groups)
        if self.step == before:
            self.optimizer.zero_grad(set_to_none=True)
            grid = getattr(self.policy, "logits", None)  # GridClickPolicy
            if isinstance(grid, torch.Tensor):
                logp = torch.log_softmax(grid, -1)
                (logp.exp() * logp).sum().backward()  # minus the entropy: a real step toward a flatter policy
            else:
                taken = [t for g in groups for e in g.episodes for t in e.turns if t.decision.tokens]
                torch.stack([s.mean() for s in self.policy.logprobs(taken)]).mean().backward()
            self.optimizer.step()
            self.step += 1
            figures["optimizer_steps"] = 1.0
        return figures
