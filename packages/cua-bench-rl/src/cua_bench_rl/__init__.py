"""cua-bench-rl: reinforcement learning on cua-bench environments.

Env workers (one env server each, on any backend) feed a multi-turn dataloader; finished rollouts
go to a replay buffer grouped by episode (``cua_bench.EpisodeSpec``: task, variant, split); GRPO
turns their rewards into advantages; a trainer plugin updates the policy and publishes new weights
to the rollout side with a version.
"""

from typing import TYPE_CHECKING

from cua_core import lazy_getattr

# Imported on first use, all of it: the package is a cua-bench plugin (its placements), so every env server
# imports it, and its data and SFT modules pull pyarrow (6.9 MiB per env server, bench/scale.py).
if TYPE_CHECKING:
    from cua_bench_rl import events
    from cua_bench_rl.buffer import ReplayBuffer
    from cua_bench_rl.checkpoints import Checkpoints
    from cua_bench_rl.config import full_task_name
    from cua_bench_rl.curves import read_curve
    from cua_bench_rl.grpo import flatten, group_advantages, pad, policy_loss
    from cua_bench_rl.hookspecs import hookimpl
    from cua_bench_rl.loader import RolloutError, RolloutLoader, TurnBatch, episode_spec
    from cua_bench_rl.policy import Policy
    from cua_bench_rl.registry import plugin_manager
    from cua_bench_rl.rollouts import Decision, Group, Rollout, Taken, Turn, spec_of_key
    from cua_bench_rl.sft import (
        Example,
        SFTConfig,
        SFTResult,
        SFTStep,
        SFTTrainer,
        check_resumable,
        check_same_start,
        load_examples,
        micro_batches,
        run_sft,
    )
    from cua_bench_rl.trainer import Trainer, TrainerConfig
    from cua_bench_rl.workers import EnvWorkers, client_for
    from cua_bench_rl.world import World

_LAZY = {
    "Policy": "cua_bench_rl.policy",
    **dict.fromkeys(("Decision", "Group", "Rollout", "Taken", "Turn"), "cua_bench_rl.rollouts"),
    **dict.fromkeys(("SFTConfig", "SFTResult", "SFTStep", "SFTTrainer", "run_sft"), "cua_bench_rl.sft"),
    **dict.fromkeys(("Trainer", "TrainerConfig"), "cua_bench_rl.trainer"),
    "EnvWorkers": "cua_bench_rl.workers",
    "RolloutLoader": "cua_bench_rl.loader",
    "TurnBatch": "cua_bench_rl.loader",
    "ReplayBuffer": "cua_bench_rl.buffer",
    "hookimpl": "cua_bench_rl.hookspecs",
    "Example": "cua_bench_rl.sft",
    "check_resumable": "cua_bench_rl.sft",
    "check_same_start": "cua_bench_rl.sft",
    "load_examples": "cua_bench_rl.sft",
    "micro_batches": "cua_bench_rl.sft",
    "World": "cua_bench_rl.world",
    "full_task_name": "cua_bench_rl.config",
    "client_for": "cua_bench_rl.workers",
    "RolloutError": "cua_bench_rl.loader",
    "episode_spec": "cua_bench_rl.loader",
    "spec_of_key": "cua_bench_rl.rollouts",
    "Checkpoints": "cua_bench_rl.checkpoints",
    "plugin_manager": "cua_bench_rl.registry",
    "flatten": "cua_bench_rl.grpo",
    "group_advantages": "cua_bench_rl.grpo",
    "pad": "cua_bench_rl.grpo",
    "policy_loss": "cua_bench_rl.grpo",
    "read_curve": "cua_bench_rl.curves",
    # Public submodule: the bus topics.
    "events": "cua_bench_rl.events",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "Checkpoints",
    "Decision",
    "EnvWorkers",
    "Example",
    "Group",
    "Policy",
    "ReplayBuffer",
    "Rollout",
    "RolloutError",
    "RolloutLoader",
    "SFTConfig",
    "SFTResult",
    "SFTStep",
    "SFTTrainer",
    "Taken",
    "Trainer",
    "TrainerConfig",
    "Turn",
    "TurnBatch",
    "World",
    "check_resumable",
    "check_same_start",
    "client_for",
    "episode_spec",
    "events",
    "flatten",
    "full_task_name",
    "group_advantages",
    "hookimpl",
    "load_examples",
    "micro_batches",
    "pad",
    "plugin_manager",
    "policy_loss",
    "read_curve",
    "run_sft",
    "spec_of_key",
]
