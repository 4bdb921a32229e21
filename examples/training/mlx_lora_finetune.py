"""LoRA-fine-tune a model's language tower with mlx on the sim taskset's oracle trajectories: here or on your pool.

    python examples/training/mlx_lora_finetune.py --steps 20
    cua run examples/training/mlx_lora_finetune.py::finetune 20 --nodes 1:2      # a gang, one rank per computer

With no model given it builds, in the current folder, a tiny random-weight Qwen2.5-VL (the real
architecture, ~200k parameters) and LiteSample data from the sim oracle (``sim/click-button`` and
``sim/login``, train split): nothing is downloaded. Every rank of a gang builds the same ones. Pass a
real checkpoint folder and dataset (``--model``, ``--data``) to train for real; see README.md.

mlx-lm loads the language tower only, so this trains on the adapter's prompts with the screenshots
left out (ddp_finetune.py trains the whole VLM). LoRA on the attention projections;
``grad_accumulation`` micro-batches per optimiser step, gradients exchanged once per step over
mlx.distributed's ring backend. Checkpoints go to the pool's store inside ``cua run`` (a restarted
gang resumes at its newest step) and to ``runs/mlx/checkpoints`` otherwise; the adapter to
``runs/mlx/adapter`` (mlx-lm's format). The last line printed is ``key=value`` pairs.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from cua_bench_rl.sft import SFTConfig, SFTStep, oracle_dataset, run_sft
from cua_bench_rl.world import World


def finetune(
    steps: int = 20,
    grad_accumulation: int = 1,
    model: str | None = None,
    data: str | None = None,
    micro_batch: int = 2,
    link_delay_ms: float = 0.0,
    output: str = "runs/mlx",
    adapter: str = "qwen2.5-vl",
) -> dict[str, Any]:
    """Positional arguments, in this order, are what `cua run FILE::finetune ARGS...` passes."""
    world = World.from_env()
    if model is None:
        from cua_data.tiny_models import build_tiny_qwen25_vl

        model = str(build_tiny_qwen25_vl(Path(f"tiny-qwen2.5-vl-rank{world.rank}")))  # seeded: the same on all
    if data is None:
        data = str(oracle_dataset(Path(f"oracle-rank{world.rank}")))
    print(f"rank {world.rank} of {world.size}, attempt {world.attempt}, pid {os.getpid()}", flush=True)
    config = SFTConfig(
        data=data,
        model=model,
        trainer="mlx",
        adapter=adapter,
        output=output,
        steps=steps,
        micro_batch=micro_batch,
        grad_accumulation=grad_accumulation,
        lr=1e-3,
        checkpoint_every=1,
        options={"link_delay_ms": link_delay_ms} if link_delay_ms else {},
    )

    def show(step: SFTStep) -> None:
        print(f"step {step.step} loss {step.loss:.4f} tokens {step.tokens} {step.seconds:.2f} s", flush=True)

    result = run_sft(config, on_step=show)
    return {**result.to_dict(), "attempt": world.attempt}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--grad-accumulation", type=int, default=1)
    parser.add_argument("--micro-batch", type=int, default=2)
    parser.add_argument("--model", help="a checkpoint folder (default: build a tiny Qwen2.5-VL here)")
    parser.add_argument("--data", help="a LiteSample dataset folder (default: sim oracle runs made here)")
    parser.add_argument("--link-delay-ms", type=float, default=0.0, help="emulated latency per gradient exchange")
    parser.add_argument("--output", default="runs/mlx")
    parser.add_argument("--adapter", default="qwen2.5-vl", help="the model family's adapter that renders the prompts")
    args = parser.parse_args()
    summary = finetune(
        args.steps,
        args.grad_accumulation,
        args.model,
        args.data,
        args.micro_batch,
        args.link_delay_ms,
        args.output,
        args.adapter,
    )
    if World.from_env().main:
        keys = ("world_size", "start_step", "steps", "tokens", "seconds", "tokens_per_s", "exchanges")
        print(" ".join(f"{k}={summary[k]:.4g}" if isinstance(summary[k], float) else f"{k}={summary[k]}" for k in keys))
