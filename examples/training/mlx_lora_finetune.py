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
    output: str = "runs/mlx",
    adapter: str = "qwen2.5-vl",
) -> dict[str, Any]:
    """Positional arguments, in this order, are what `cua run FILE::finetune ARGS...` passes."""
    return tiny_finetune("mlx", steps, grad_accumulation, model, data, micro_batch, link_delay_ms, output, adapter)


if __name__ == "__main__":
    command_line(finetune, __doc__.split("\n")[0])
