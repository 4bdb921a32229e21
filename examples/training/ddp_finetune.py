"""Fine-tune a VLM with torch DDP on the sim taskset's oracle trajectories: here, under torchrun, or on your pool.

    python examples/training/ddp_finetune.py --steps 20
    torchrun --nproc-per-node 2 examples/training/ddp_finetune.py --steps 20
    cua run examples/training/ddp_finetune.py::finetune 20 --nodes 1:2      # a gang, one rank per computer

With no model given it builds, in the current folder, a tiny random-weight Qwen2.5-VL (the real
architecture, ~200k parameters) and LiteSample data from the sim oracle (``sim/click-button`` and
``sim/login``, train split): nothing is downloaded. Every rank of a gang builds the same ones. Pass a
real checkpoint folder and dataset (``--model``, ``--data``) to train for real; see README.md.

LoRA on the language model's attention projections; ``grad_accumulation`` micro-batches per optimiser
step, gradients exchanged once per step. Checkpoints go to the pool's store inside ``cua run`` (so a
gang restarted after a lost computer resumes at its newest step) and to ``runs/ddp/checkpoints``
otherwise. The last line printed is ``key=value`` pairs.
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
    output: str = "runs/ddp",
) -> dict[str, Any]:
    """Positional arguments, in this order, are what `cua run FILE::finetune ARGS...` passes."""
    world = World.from_env()
    targets = ("q_proj", "k_proj", "v_proj", "o_proj")
    if model is None:
        from cua_data.tiny_models import build_tiny_qwen25_vl

        # A random output layer, frozen, bounds the logits: the tiny model's LoRA also covers lm_head.
        targets += ("lm_head",)

        model = str(build_tiny_qwen25_vl(Path(f"tiny-qwen2.5-vl-rank{world.rank}")))  # seeded: the same on all
    if data is None:
        data = str(oracle_dataset(Path(f"oracle-rank{world.rank}")))
    print(f"rank {world.rank} of {world.size}, attempt {world.attempt}, pid {os.getpid()}", flush=True)
    config = SFTConfig(
        data=data,
        model=model,
        trainer="ddp",
        output=output,
        steps=steps,
        micro_batch=micro_batch,
        grad_accumulation=grad_accumulation,
        lr=1e-3,
        lora_targets=targets,
        checkpoint_every=1,
        options={"link_delay_ms": link_delay_ms} if link_delay_ms else {},
    )

    def show(step: SFTStep) -> None:
        print(f"step {step.step} loss {step.loss:.4f} tokens {step.tokens} {step.seconds:.2f} s", flush=True)

    result = run_sft(config, on_step=show)
    summary = {**result.to_dict(), "attempt": world.attempt}
    summary.pop("config")
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--grad-accumulation", type=int, default=1)
    parser.add_argument("--micro-batch", type=int, default=2)
    parser.add_argument("--model", help="a checkpoint folder (default: build a tiny Qwen2.5-VL here)")
    parser.add_argument("--data", help="a LiteSample dataset folder (default: sim oracle runs made here)")
    parser.add_argument("--link-delay-ms", type=float, default=0.0, help="emulated latency per gradient exchange")
    parser.add_argument("--output", default="runs/ddp")
    args = parser.parse_args()
    summary = finetune(
        args.steps, args.grad_accumulation, args.model, args.data, args.micro_batch, args.link_delay_ms, args.output
    )
    if World.from_env().main:
        keys = ("world_size", "start_step", "steps", "tokens", "seconds", "tokens_per_s", "exchanges")
        print(" ".join(f"{k}={summary[k]:.4g}" if isinstance(summary[k], float) else f"{k}={summary[k]}" for k in keys))
