"""TRL's trainers on cua data and environments.

- ``trl`` SFT trainer (``cua-bench-rl sft --trainer trl``): TRL's ``SFTTrainer`` on LiteSample
  trajectories through the adapter's own collation (:class:`cua_trainer_trl.sft.TRLSFTTrainer`).
- GRPO for TRL users: ``GRPOTrainer(..., reward_funcs=env_reward, train_dataset=task_dataset(...),
  rollout_func=rollout_func("sim:click-button", ...))`` plays each rollout as an episode on
  cua-bench-rl's env workers and rewards it with the task's evaluator.

Names are imported on first use, so importing the package (the plugin hook does) stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cua_trainer_trl.dataset import task_dataset
    from cua_trainer_trl.rollout import CuaRollout, env_reward, rollout_func
    from cua_trainer_trl.sft import TRLSFTTrainer

__all__ = ["CuaRollout", "TRLSFTTrainer", "env_reward", "rollout_func", "task_dataset"]

_HOMES = {
    "CuaRollout": "cua_trainer_trl.rollout",
    "env_reward": "cua_trainer_trl.rollout",
    "rollout_func": "cua_trainer_trl.rollout",
    "task_dataset": "cua_trainer_trl.dataset",
    "TRLSFTTrainer": "cua_trainer_trl.sft",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'cua_trainer_trl' has no attribute {name!r}")
    return getattr(import_module(home), name)
