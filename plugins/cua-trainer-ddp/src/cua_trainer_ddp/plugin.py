"""cua-trainer-ddp's hook (entry point group ``cua_bench_rl``); torch is imported only when training."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cua_bench_rl import hookimpl
from cua_core import Register

if TYPE_CHECKING:
    from cua_bench_rl import SFTTrainer


@hookimpl
def cua_bench_rl_register_sft_trainers(register: Register[type[SFTTrainer]]) -> None:
    from cua_trainer_ddp.trainer import DDPTrainer

    register(
        "ddp",
        DDPTrainer,
        description="torch DistributedDataParallel SFT, full or LoRA (peft): gloo on CPU, NCCL on GPU; "
        "gradients exchanged once per grad_accumulation micro-batches",
    )
