"""cua-bench-rl: reinforcement learning on cua-bench environments.

Env workers (one env server each, on any backend) feed a multi-turn dataloader; finished rollouts
go to a replay buffer grouped by episode (``cua_bench.EpisodeSpec``: task, variant, split); GRPO
turns their rewards into advantages; a trainer plugin updates the policy and publishes new weights
to the rollout side with a version.
"""

from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Group, Rollout, Taken, Turn
from cua_bench_rl.sft import SFTConfig, SFTResult, SFTStep, SFTTrainer, run_sft
from cua_bench_rl.trainer import Trainer, TrainerConfig

__all__ = [
    "Decision",
    "Group",
    "Policy",
    "Rollout",
    "SFTConfig",
    "SFTResult",
    "SFTStep",
    "SFTTrainer",
    "Taken",
    "Trainer",
    "TrainerConfig",
    "Turn",
    "run_sft",
]
