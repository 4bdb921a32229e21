"""cua-trainer-mlx's hook (entry point group ``cua_bench_rl``); mlx is imported only when training."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cua_bench_rl import hookimpl
from cua_core import Register

if TYPE_CHECKING:
    from cua_bench_rl import SFTTrainer


@hookimpl
def cua_bench_rl_register_sft_trainers(register: Register[type[SFTTrainer]]) -> None:
    from cua_trainer_mlx.trainer import MLXTrainer

    register(
        "mlx",
        MLXTrainer,
        description="LoRA on the language tower with mlx-lm (text-only prompts: screenshots left out); "
        "mlx.distributed ring backend, gradients exchanged once per grad_accumulation micro-batches",
    )
