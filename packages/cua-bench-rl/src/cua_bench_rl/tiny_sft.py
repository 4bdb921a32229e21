"""An SFT run that needs nothing downloaded: the examples', the benchmark's and the pool tests' run.

With no model it builds a tiny random-weight Qwen2.5-VL (the real architecture, ~200k parameters)
and, with no data, LiteSample trajectories of the sim taskset's oracle, both in the current folder
(a pool space's own, in a `cua run` job). Every rank builds the same ones (seeded), each in its own
folder so that ranks sharing a folder (torchrun) do not write over each other.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cua_bench_rl.sft import SFTConfig, SFTStep, oracle_dataset, run_sft
from cua_bench_rl.world import World

__all__ = ["command_line", "finetune"]

ATTENTION = ("q_proj", "k_proj", "v_proj", "o_proj")


def finetune(
    trainer: str,
    steps: int = 20,
    grad_accumulation: int = 1,
    model: str | None = None,
    data: str | None = None,
    micro_batch: int = 2,
    link_delay_ms: float = 0.0,
    output: str | None = None,
    adapter: str = "qwen2.5-vl",
) -> dict[str, Any]:
    """Train ``steps`` steps with ``trainer``; rank 0 prints each step; the result and the pool attempt."""
    world = World.from_env()
    targets: tuple[str, ...] = ATTENTION
    if model is None:
        from cua_data import build_tiny_qwen25_vl

        model = str(build_tiny_qwen25_vl(Path(f"tiny-qwen2.5-vl-rank{world.rank}")))
        if trainer != "mlx":  # mlx-lm puts LoRA in the decoder layers only
            # The tiny model's random output layer, frozen, bounds its logits (the loss stalls near
            # 5.8 with attention-only LoRA); a LoRA on lm_head lifts the bound.
            targets += ("lm_head",)
    if data is None:
        data = str(oracle_dataset(Path(f"oracle-rank{world.rank}")))
    print(f"rank {world.rank} of {world.size}, attempt {world.attempt}, pid {os.getpid()}", flush=True)
    config = SFTConfig(
        data=data,
        model=model,
        trainer=trainer,
        adapter=adapter,
        output=output or f"runs/{trainer}",
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


def command_line(example: Callable[..., dict[str, Any]], description: str) -> None:
    """``python EXAMPLE.py --steps N ...``: run ``example`` with these flags; rank 0 prints key=value last."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--grad-accumulation", type=int, default=1, help="micro-batches per gradient exchange")
    parser.add_argument("--model", help="a checkpoint folder (default: build a tiny Qwen2.5-VL here)")
    parser.add_argument("--data", help="a LiteSample dataset folder (default: sim oracle runs made here)")
    parser.add_argument("--micro-batch", type=int, default=2)
    parser.add_argument("--link-delay-ms", type=float, default=0.0, help="emulated latency per gradient exchange")
    parser.add_argument("--output", help="final adapter and local checkpoints (default runs/TRAINER)")
    parser.add_argument("--adapter", default="qwen2.5-vl", help="the model family's adapter that renders prompts")
    args = parser.parse_args()
    summary = example(
        args.steps, args.grad_accumulation, args.model, args.data, args.micro_batch, args.link_delay_ms,
        args.output, args.adapter,
    )  # fmt: skip
    if World.from_env().main:
        keys = ("world_size", "start_step", "steps", "tokens", "seconds", "tokens_per_s", "exchanges")
        print(" ".join(f"{k}={summary[k]:.4g}" if isinstance(summary[k], float) else f"{k}={summary[k]}" for k in keys))
