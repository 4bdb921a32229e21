"""A small RL run on sim for tests: a grid-click policy and a trainer that records what it was given."""

from __future__ import annotations

from pathlib import Path

from cua_bench_rl.config import TrainConfig

__all__ = ["POLICY", "TRAINER", "small_train_config"]

ROOT = Path(__file__).resolve().parents[2]
POLICY = str(ROOT / "tests/support/rl_policies.py") + ":GridClickPolicy"
TRAINER = str(ROOT / "tests/support/rl_trainers.py") + ":RecordingTrainer"


def small_train_config(**changes: object) -> TrainConfig:
    """Three steps of groups of 4 on sim:click-button with 2 workers, checkpointed each step; ``changes`` override."""
    settings: dict[str, object] = {
        "env": "sim:click-button",
        "policy": POLICY,
        "trainer": TRAINER,
        "trainer_options": {"lr": 0.1},
        "group_size": 4,
        "groups_per_step": 2,
        "workers": 2,
        "eval_workers": 1,
        "eval_episodes": 3,
        "steps": 3,
        "checkpoint_every": 1,
        "train_variants": 6,
    }
    settings.update(changes)
    return TrainConfig.from_dict(settings)
