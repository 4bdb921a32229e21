"""One rank of the 2-process test: ``python -m torch.distributed.run --nproc-per-node 2 ddp_job.py DATA MODEL OUT``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from cua_trainer_trl.sft import TRLSFTTrainer

from cua_bench_rl.checkpoints import checkpoints_in
from cua_bench_rl.sft import SFTConfig, preflight
from cua_bench_rl.world import World

data, model, output = sys.argv[1:4]
config = SFTConfig(
    data=data, model=model, trainer="trl", output=output, steps=2, lr=1e-2, micro_batch=1, checkpoint_every=1, threads=1
)
preflight(config)
world = World.from_env()
trainer = TRLSFTTrainer(config, world, checkpoints_in(Path(output) / "checkpoints"))
result = trainer.fit()
lora = {n: p for n, p in trainer.model.named_parameters() if p.requires_grad}
summary = {
    **result.to_dict(),
    "wrapper": trainer.wrapper,
    "lora_sum": float(sum(float(p.detach().double().abs().sum()) for p in lora.values())),
    "left_group": not torch.distributed.is_initialized(),  # fit leaves the group it joined
}
Path(output, f"rank{world.rank}.json").write_text(json.dumps(summary))
