"""A trainer for tests of the RL loop: the built-in GRPO trainer, recording what each step was given."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from cua_bench_rl.rollouts import Group
from cua_trainer_grpo.trainer import GRPOTrainer

__all__ = ["RecordingTrainer"]


class RecordingTrainer(GRPOTrainer):
    """Appends ``{"step", "versions"}`` per train_step to the JSON-lines file ``$CUA_TEST_TRAINER_LOG``:
    the policy version it is about to train from, and each group's oldest version."""

    def train_step(self, groups: Sequence[Group]) -> dict[str, float]:
        path = os.environ.get("CUA_TEST_TRAINER_LOG")
        if path:
            with open(path, "a") as handle:
                handle.write(json.dumps({"step": self.step, "versions": [g.version for g in groups]}) + "\n")
        return super().train_step(groups)
