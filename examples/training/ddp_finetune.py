"""Fine-tune a VLM with torch DDP on the sim taskset's oracle trajectories: here, under torchrun, or on your pool.

    python examples/training/ddp_finetune.py --steps 20
    torchrun --nproc-per-node 2 examples/training/ddp_finetune.py --steps 20
    cua run examples/training/ddp_finetune.py::finetune 20 --nodes 1:2      # a gang, one rank per computer

With no model given it builds, in the current folder, a tiny random-weight Qwen2.5-VL (the real
architecture, ~200k parameters) and LiteSample data from the sim oracle (``sim/click-button`` and
``sim/login``, train split): nothing is downloaded. Pass a real checkpoint folder and dataset
(``--model``, ``--data``) to train for real; see README.md.

The whole VLM sees each prompt with its screenshots (the adapter's own rendering); LoRA on the
attention projections. ``grad_accumulation`` micro-batches per optimiser step, gradients exchanged
once per step (gloo on CPU, NCCL on GPU). Checkpoints go to the pool's store inside ``cua run`` (so
a gang restarted after a lost computer resumes at its newest step), else to ``runs/ddp/checkpoints``.
"""

from __future__ import annotations

from typing import Any

from cua_bench_rl.tiny_sft import command_line
from cua_bench_rl.tiny_sft import finetune as tiny_finetune


def finetune(
    steps: int = 20,
    grad_accumulation: int = 1,
    model: str | None = None,
    data: str | None = None,
    micro_batch: int = 2,
    link_delay_ms: float = 0.0,
    output: str = "runs/ddp",
    adapter: str = "qwen2.5-vl",
) -> dict[str, Any]:
    """Positional arguments, in this order, are what `cua run FILE::finetune ARGS...` passes."""
    return tiny_finetune("ddp", steps, grad_accumulation, model, data, micro_batch, link_delay_ms, output, adapter)


if __name__ == "__main__":
    command_line(finetune, __doc__.split("\n")[0])
