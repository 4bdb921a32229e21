"""A job a researcher would submit: evaluate an agent on the sim taskset and keep the trajectories."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def evaluate(output: str, agent: str = "oracle", variants: int = 2) -> dict[str, Any]:
    from cua_bench.runner import RunConfig, Runner

    config = RunConfig("sim", Path(output), agent=agent, variants=variants, max_parallel=2, max_steps=15)
    summary = Runner(config).run()
    print(f"{agent}: success {summary['success_rate']:.2f} over {summary['episodes']} episodes", flush=True)
    return {"success_rate": summary["success_rate"], "episodes": summary["episodes"]}
