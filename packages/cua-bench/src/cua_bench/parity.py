"""Parity between two backends: the same episodes with the same agent, and the rewards compared.

A backend that claims to be the same desktop (``docker`` beside ``local``) must give the oracle the
same reward on every (task, variant): a difference is a bug in one of them, or a task that depends
on something the backends do not share. Episodes that errored or were skipped count as differences.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from cua_bench.runner import RunConfig, Runner
from cua_bench.summary import EpisodeResult, load_results

__all__ = ["Difference", "ParityReport", "compare", "run_parity"]


@dataclass(frozen=True)
class Difference:
    key: str  # "<task>/<split>/<variant>"
    left: str  # the reward, or the status and error when there is none
    right: str


@dataclass
class ParityReport:
    backends: tuple[str, str]
    episodes: int
    differences: list[Difference]

    @property
    def same(self) -> bool:
        return not self.differences

    def format(self) -> str:
        left, right = self.backends
        lines = [f"{left} vs {right}: {self.episodes} episodes, {len(self.differences)} differ"]
        width = max((len(d.key) for d in self.differences), default=0)
        lines += [f"  {d.key:{width}}  {left}={d.left}  {right}={d.right}" for d in self.differences]
        return "\n".join(lines)


def _outcome(result: EpisodeResult | None) -> str:
    if result is None:
        return "missing"
    if result.status != "ok":
        return f"{result.status} ({result.error})" if result.error else result.status
    return f"{result.reward:g}"


def compare(left: dict[str, EpisodeResult], right: dict[str, EpisodeResult], backends: tuple[str, str]) -> ParityReport:
    """Every episode in either run whose outcome differs (rewards compared exactly)."""
    keys = sorted(set(left) | set(right))
    differences = []
    for key in keys:
        a, b = left.get(key), right.get(key)
        ok = a is not None and b is not None and a.status == b.status == "ok" and a.reward == b.reward
        if not ok:
            differences.append(Difference(key, _outcome(a), _outcome(b)))
    return ParityReport(backends, len(keys), differences)


def run_parity(
    taskset: str,
    backends: tuple[str, str],
    *,
    agent: str = "oracle",
    variants: int | None = None,
    split: str = "test",
    max_parallel: int = 2,
    output: Path | None = None,
    tasks: str | None = None,
) -> ParityReport:
    """Run ``taskset`` on both backends (one after the other) and compare; runs go under ``output``;
    ``tasks`` narrows the taskset as ``cua-bench run --tasks`` does (names or globs, comma-separated)."""
    with tempfile.TemporaryDirectory(prefix="cua-parity-") as scratch:
        folder = output or Path(scratch)
        results = []
        for backend in backends:
            config = RunConfig(
                taskset, folder / backend, backend, agent, None, max_parallel,
                variants=variants, split=split, record=False, tasks=tasks,
            )  # fmt: skip
            Runner(config).run()
            results.append(load_results(config.output / "episodes.jsonl"))
        return compare(results[0], results[1], backends)
