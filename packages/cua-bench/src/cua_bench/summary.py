"""Episode results and the run summary: success rate, mean reward, a per-task table, timings."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["EpisodeResult", "format_summary", "load_results", "summarize"]

SUCCESS = 1.0  # an episode succeeds when its reward reaches this


@dataclass
class EpisodeResult:
    key: str  # "<task>/<split>/<variant>"
    task: str
    variant: int
    split: str
    status: str  # "ok", "error" or "skipped"; neither of the last two is ever counted as a 0
    reward: float | None = None
    steps: int = 0
    attempts: int = 1
    duration_s: float = 0.0
    step_s: list[float] = field(default_factory=list)
    error: str | None = None
    # Setup steps that ran but did not do their job ("setup step 2 (execute): ... exited 127"), as
    # the task reported them in reset's info (``Task.metadata["setup_failures"]``); the episode
    # still counts, so the summary counts these beside it rather than hiding them in a log.
    setup_failures: list[str] = field(default_factory=list)
    # Where an errored episode's task code failed (its file, line and call chain: ``TaskModule.call``),
    # so the author finds the bug without rerunning; None when the error was not the task's code.
    traceback: str | None = None
    screen: list[int] | None = None  # [width, height] the episode ran at (the task's own size, or the run's)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, line: str) -> EpisodeResult:
        return cls(**json.loads(line))


def load_results(path: Path) -> dict[str, EpisodeResult]:
    """Results recorded so far (the last line per episode wins); a torn last line is ignored."""
    results: dict[str, EpisodeResult] = {}
    if not path.exists():
        return results
    for line in path.read_text().splitlines():
        try:
            result = EpisodeResult.from_json(line)
        except (ValueError, TypeError):
            continue  # a line cut by a crash mid-write
        results[result.key] = result
    return results


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarize(results: Iterable[EpisodeResult], *, wall_s: float = 0.0, **about: Any) -> dict[str, Any]:
    done = list(results)
    scored = [r for r in done if r.status == "ok" and r.reward is not None]
    rewards = [r.reward or 0.0 for r in scored]
    per_task: dict[str, list[EpisodeResult]] = defaultdict(list)
    for result in done:
        per_task[result.task].append(result)
    steps = [s for r in scored for s in r.step_s]
    screens = sorted({f"{r.screen[0]}x{r.screen[1]}" for r in done if r.screen}, key=_area)
    durations = [r.duration_s for r in scored]
    table = {}
    for task, items in sorted(per_task.items()):
        ok = [r for r in items if r.status == "ok"]
        table[task] = {
            "episodes": len(items),
            "errors": sum(r.status == "error" for r in items),
            "skipped": sum(r.status == "skipped" for r in items),
            "scored": len(ok),
            "setup_failures": sum(len(r.setup_failures) for r in items),
            "success_rate": sum((r.reward or 0) >= SUCCESS for r in ok) / len(ok) if ok else 0.0,
            "mean_reward": statistics.fmean([r.reward or 0 for r in ok]) if ok else 0.0,
            "mean_steps": statistics.fmean([r.steps for r in ok]) if ok else 0.0,
        }
    return {
        **about,
        "episodes": len(done),
        "scored": len(scored),
        "errors": sum(r.status == "error" for r in done),
        "skipped": sum(r.status == "skipped" for r in done),
        # Failed setup steps, and the episodes that had any (scored all the same: see EpisodeResult).
        "setup_failures": sum(len(r.setup_failures) for r in done),
        "setup_failed_episodes": sum(bool(r.setup_failures) for r in done),
        "success_rate": sum(r >= SUCCESS for r in rewards) / len(rewards) if rewards else 0.0,
        "mean_reward": statistics.fmean(rewards) if rewards else 0.0,
        "tasks": table,
        "screens": screens,  # what the episodes ran at: a task's computer block may name its own size
        "timings": {
            "wall_s": wall_s,
            "episode_p50_s": _pct(durations, 0.5),
            "episode_p95_s": _pct(durations, 0.95),
            "step_p50_ms": _pct(steps, 0.5) * 1000,
            "step_p95_ms": _pct(steps, 0.95) * 1000,
            "episodes_per_min": len(done) / wall_s * 60 if wall_s else 0.0,
        },
    }


def _area(size: str) -> int:
    width, _, height = size.partition("x")
    return int(width) * int(height)


def _scored(summary: dict[str, Any]) -> int:
    """How many episodes were scored (summaries written before ``scored`` existed: the others)."""
    if "scored" in summary:
        return int(summary["scored"])
    return int(summary["episodes"]) - int(summary.get("errors", 0)) - int(summary.get("skipped", 0))


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as text. Rates over no scored episode print "n/a": "0.0%" would read as an agent
    that failed everything, when nothing was scored at all (every episode errored or skipped)."""
    scored = _scored(summary)
    success = f"{summary['success_rate']:.1%}" if scored else "n/a"
    reward = f"{summary['mean_reward']:.3f}" if scored else "n/a"
    where = f", placed {summary['placement']}" if summary.get("placement", "here") != "here" else ""
    lines = [
        f"{summary.get('agent', '?')} on {summary.get('taskset', '?')} ({summary.get('backend', '?')}{where}): "
        f"{summary['episodes']} episodes, {scored} scored, success {success}, "
        f"mean reward {reward}, errors {summary['errors']}, skipped {summary.get('skipped', 0)}",
    ]
    if summary.get("setup_failures"):
        lines.append(
            f"setup failures: {summary['setup_failures']} failed step(s) in "
            f"{summary.get('setup_failed_episodes', '?')} episode(s), scored all the same "
            "(`cua-bench report RUN` lists them)"
        )
    lines.append(f"{'task':32} {'eps':>5} {'succ':>7} {'reward':>7} {'steps':>6} {'err':>4} {'skip':>5}")
    for task, row in summary["tasks"].items():
        if _scored(row):
            numbers = f"{row['success_rate']:>7.1%} {row['mean_reward']:>7.3f} {row['mean_steps']:>6.1f}"
        else:
            numbers = f"{'n/a':>7} {'n/a':>7} {'n/a':>6}"
        lines.append(f"{task[:32]:32} {row['episodes']:>5} {numbers} {row['errors']:>4} {row['skipped']:>5}")
    settings = summary.get("settings") or {}
    if settings:
        shown = {
            k: v
            for k, v in settings.items()
            if k not in ("taskset", "backend", "agent", "seed") and v not in (None, {})
        }
        if summary.get("screens"):  # the size the tasks ran at, not the run's size for tasks that name none
            shown["screen"] = ",".join(summary["screens"])
        lines.append("settings: " + ", ".join(f"{k}={v}" for k, v in shown.items()))
    t = summary["timings"]
    lines.append(
        f"wall {t['wall_s']:.1f} s, {t['episodes_per_min']:.0f} episodes/min, episode p50 {t['episode_p50_s']:.2f} s "
        f"p95 {t['episode_p95_s']:.2f} s, step p50 {t['step_p50_ms']:.1f} ms p95 {t['step_p95_ms']:.1f} ms"
    )
    usage = summary.get("agent_usage") or {}
    if usage.get("model_calls"):
        calls = usage["model_calls"]
        lines.append(
            f"model: {calls:.0f} calls, mean latency {usage.get('model_s', 0) / calls * 1000:.0f} ms, "
            f"{_tokens(usage)}, unparseable outputs {usage.get('parse_errors', 0):.0f}, "
            f"retries {usage.get('retries', 0):.0f}"
        )
        if usage.get("parse_errors") == calls:
            lines.append(
                f"note: every one of the {calls:.0f} model outputs failed to parse: the adapter probably does not "
                "match the model (`cua-bench list` names the adapters)"
            )
    lines += [f"note: {note}" for note in summary.get("notes") or []]
    if summary.get("stopped"):
        lines.append(f"stopped early: {summary['stopped']}")
    return "\n".join(lines)


def _tokens(usage: dict[str, Any]) -> str:
    """Tokens as the server reported them; an answer without ``usage`` is "not reported", never 0 tokens."""
    if "prompt_tokens" not in usage:  # no answer carried usage (agents before this key always had it)
        return "tokens: usage not reported"
    missing = usage.get("calls_without_usage", 0)
    tokens = f"tokens {usage['prompt_tokens']:.0f} in / {usage.get('completion_tokens', 0):.0f} out"
    return tokens + (f" (usage not reported for {missing:.0f} calls)" if missing else "")
