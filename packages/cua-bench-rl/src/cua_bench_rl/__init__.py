"""cua-bench-rl: reinforcement learning on cua-bench environments.

Env workers (one env server each, on any backend) feed a multi-turn dataloader; finished episodes
go to a replay buffer grouped by (task, variant); GRPO turns their rewards into advantages; a
trainer plugin updates the policy and publishes new weights to the rollout side with a version.
"""

from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Episode, Group, Taken, TaskRef, Turn
from cua_bench_rl.sft import SFTConfig, SFTResult, SFTStep, SFTTrainer, run_sft
from cua_bench_rl.trainer import Trainer, TrainerConfig

__all__ = [
    "Decision",
    "Episode",
    "Group",
    "Policy",
    "SFTConfig",
    "SFTResult",
    "SFTStep",
    "SFTTrainer",
    "Taken",
    "TaskRef",
    "Trainer",
    "TrainerConfig",
    "Turn",
    "run_sft",
]
