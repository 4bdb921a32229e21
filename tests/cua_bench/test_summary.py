"""The run summary: what it counts, and rates that are "n/a" when nothing was scored."""

from __future__ import annotations

import json
from pathlib import Path

from cua_bench.summary import EpisodeResult, format_summary, load_results, summarize


def _result(task: str, status: str, reward: float | None = None, **extra: object) -> EpisodeResult:
    return EpisodeResult(f"{task}/test/0", task, 0, "test", status, reward, **extra)  # type: ignore[arg-type]


def test_a_run_with_nothing_scored_prints_na_not_zero() -> None:
    summary = summarize([_result("a", "error", error="PlatformError: ..."), _result("b", "skipped", error="proxy")])
    assert summary["scored"] == 0
    text = format_summary(summary)
    first, *_ = text.splitlines()
    assert "0 scored, success n/a, mean reward n/a, errors 1, skipped 1" in first
    assert "0.0%" not in text  # neither in the line nor in the per-task rows
    row = next(line for line in text.splitlines() if line.startswith("a "))
    assert row.split()[1:] == ["1", "n/a", "n/a", "n/a", "1", "0"]


def test_a_scored_zero_is_still_a_zero() -> None:
    text = format_summary(summarize([_result("a", "ok", 0.0), _result("b", "error")]))
    assert "1 scored, success 0.0%, mean reward 0.000" in text.splitlines()[0]


def test_setup_failures_are_counted_and_shown() -> None:
    results = [
        _result("a", "ok", 1.0, setup_failures=["setup step 1 (execute): `sudo -S mkdir x`: exit 127"]),
        _result("b", "ok", 0.0, setup_failures=["setup step 2 (open): no window", "setup step 3 (launch): gimp"]),
        _result("c", "ok", 1.0),
    ]
    summary = summarize(results)
    assert (summary["setup_failures"], summary["setup_failed_episodes"]) == (3, 2)
    assert summary["tasks"]["b"]["setup_failures"] == 2
    assert "setup failures: 3 failed step(s) in 2 episode(s)" in format_summary(summary)
    assert "setup failures" not in format_summary(summarize([_result("c", "ok", 1.0)]))


def test_results_written_before_setup_failures_existed_still_load(tmp_path: Path) -> None:
    old = {"key": "a/test/0", "task": "a", "variant": 0, "split": "test", "status": "ok", "reward": 1.0}
    (tmp_path / "episodes.jsonl").write_text(json.dumps(old) + "\n")
    (result,) = load_results(tmp_path / "episodes.jsonl").values()
    assert result.setup_failures == [] and result.reward == 1.0
    # and a summary saved before "scored" existed still prints its rates
    summary = summarize([result])
    del summary["scored"]
    assert "success 100.0%" in format_summary(summary)
