"""One rank of an SFT run whose checkpoints are its own (OUT/rank<RANK>): launched as several ranks,
a rank that finds a checkpoint while the others find none must stop with the trainer's error.

Usage: python sft_own_output.py TRAINER MODEL DATA OUT [ADAPTER]
"""

from __future__ import annotations

import sys

from cua_bench_rl.sft import SFTConfig, run_sft
from cua_bench_rl.world import World
from cua_core.errors import CuaError

trainer, model, data, out = sys.argv[1:5]
adapter = sys.argv[5] if len(sys.argv) > 5 else "qwen2.5-vl"
config = SFTConfig(data=data, model=model, trainer=trainer, adapter=adapter, steps=3, micro_batch=1)
config.output = f"{out}/rank{World.from_env().rank}"
try:
    run_sft(config)
except CuaError as exc:
    print(f"REFUSED {exc}", flush=True)
    sys.exit(3)
