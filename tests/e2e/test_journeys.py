"""Journeys across packages, as a user takes them: the pool runs an evaluation job from cua-bench,
its result comes back through `cua jobs result`, and cua-data reads the trajectories it wrote."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cua_data.cli import main as cua_data
from cua_pool.cli import main as cua

JOBS = Path(__file__).parent / "jobs"


def run(command: object, *args: object) -> str:
    result = CliRunner().invoke(command, [str(a) for a in args], catch_exceptions=False)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    return result.output


def test_an_evaluation_job_on_the_pool_leaves_a_dataset(local_pool: None, tmp_path: Path) -> None:
    output = tmp_path / "run"
    logs = run(cua, "run", f"{JOBS / 'evaluate.py'}::evaluate", str(output), "oracle", "2")
    assert "[rank 0 " in logs and "oracle: success 1.00 over" in logs  # streamed from the space
    job = json.loads(run(cua, "jobs", "--json"))[0]["id"]
    result = tmp_path / "result.json"
    run(cua, "jobs", "result", job, "-o", result)
    summary = json.loads(result.read_text())
    assert summary["success_rate"] == 1.0 and summary["episodes"] == 2 * 25  # 25 families, 2 variants each
    stats = json.loads(run(cua_data, "stats", output / "trajectories", "--json"))
    assert stats["rows"] == summary["episodes"]  # one LiteSample trajectory per episode
    run(cua_data, "validate", output / "trajectories")
