"""cua-trainer-trl's hooks (entry point group ``cua_bench_rl``).

The hook imports the trainer only when called, so listing plugins never imports torch, transformers
or trl. TRL's GRPOTrainer is not registered here: it owns its loop and its rollouts, so it does not
fit ``Trainer.train_step(groups)``; a TRL user builds it and passes :func:`cua_trainer_trl.rollout_func`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cua_bench_rl import hookimpl
from cua_core import Register

if TYPE_CHECKING:
    from cua_bench_rl import SFTTrainer


@hookimpl
def cua_bench_rl_register_sft_trainers(register: Register[type[SFTTrainer]]) -> None:
    from cua_trainer_trl.sft import TRLSFTTrainer

    register(
        "trl",
        TRLSFTTrainer,
        description="TRL's SFTTrainer on the adapter's collation (LoRA via peft, DDP over gloo/NCCL under torchrun)",
    )
