"""One rank of the two-rank test (run as a subprocess with MLX_RANK, MLX_WORLD_SIZE and MLX_HOSTFILE set).

Usage: python rank_job.py MODEL DATA OUT. Fits twice over the same ring group, with one and with two
micro-batches per step, and writes each fit's result and LoRA weights to OUT/k{k}-rank{rank}.{json,npz}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from cua_trainer_mlx.checkpoint import trainable_weights
from cua_trainer_mlx.trainer import MLXTrainer

from cua_bench_rl.checkpoints import FolderCheckpoints
from cua_bench_rl.sft import SFTConfig
from cua_bench_rl.world import World


def main(model: str, data: str, out: Path) -> None:
    world = World.from_env()
    for k in (1, 2):
        config = SFTConfig(
            data=data, model=model, trainer="mlx", adapter="aguvis", output=str(out / f"k{k}"), steps=2,
            micro_batch=1, grad_accumulation=k, lr=1e-2, lora_rank=4, lora_alpha=8,
        )  # fmt: skip
        trainer = MLXTrainer(config, world, FolderCheckpoints(out / f"k{k}" / "checkpoints"))
        result = trainer.fit()
        name = out / f"k{k}-rank{world.rank}"
        name.with_suffix(".json").write_text(json.dumps(result.to_dict()))
        np.savez(name.with_suffix(".npz"), **{n: np.array(v) for n, v in trainable_weights(trainer.model).items()})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
