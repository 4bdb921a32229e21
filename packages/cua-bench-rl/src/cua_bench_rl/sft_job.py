"""What each member of a ``cua-bench-rl sft --nodes`` gang runs; ``cua run`` ships this file alone.

The host's python needs cua-bench-rl and the chosen trainer plugin installed (the pool runs a job
with its host agent's interpreter).
"""

from __future__ import annotations

from typing import Any

JOB_FILE = "cua_sft_job.py"
JOB_FN = "sft"


def sft(config: dict[str, Any]) -> dict[str, Any]:
    """One rank's part of the run; rank 0's return value is the job's result."""
    from cua_bench_rl.sft import SFTConfig, SFTStep, run_sft

    def show(step: SFTStep) -> None:
        print(f"step {step.step} loss {step.loss:.4f} tokens {step.tokens} {step.seconds:.2f} s", flush=True)

    return run_sft(SFTConfig.from_dict(config), on_step=show).to_dict()
