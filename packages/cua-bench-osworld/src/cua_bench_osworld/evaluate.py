"""Scoring an OSWorld task exactly as OSWorld's ``DesktopEnv.evaluate`` does.

1. Run the evaluator's ``postconfig`` steps.
2. ``infeasible`` tasks score 1 if the agent's last action was FAIL, else 0; any other task
   scores 0 if it was.
3. One metric (``func`` a string): its value is the score. A result getter that raises
   FileNotFoundError scores 0.
4. Several metrics, ``conj`` "and" (the default): 0 at the first metric that gives 0 or whose
   result file is missing, else the mean. ``conj`` "or": 1 at the first metric that gives 1, else
   the largest.

Each metric is called as OSWorld calls it: ``metric(result, expected, **options)``, or
``metric(result, **options)`` when the task has no expected. Where OSWorld itself would crash we
choose: under "or" a missing result file gives the metric ``None`` (OSWorld reuses the previous
metric's result, or fails on the first), and a metric with no expected getter in a list gets no
expected (OSWorld calls None).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from cua_bench_osworld.loader import Evaluator, TaskSkipped
from cua_bench_osworld.metrics import BUILTIN_METRICS

__all__ = ["combine", "metric_function"]

Getter = Callable[[dict[str, Any]], Awaitable[Any]]
Metric = Callable[..., Any]


def metric_function(name: str, official: dict[str, Metric] | None = None) -> tuple[Metric, str]:
    """OSWorld's function when loaded (``official``), else ours; and which it is."""
    if official and name in official:
        return official[name], "osworld"
    if name in BUILTIN_METRICS:
        return BUILTIN_METRICS[name], "builtin"
    raise TaskSkipped(f"unsupported metric: {name}")


async def _call(fn: Metric, *args: Any, **kwargs: Any) -> float:
    # Metrics read files and may take a while (pandas); keep the env server's loop free.
    return float(await asyncio.to_thread(fn, *args, **kwargs))


async def _value(evaluator: Evaluator, index: int, result: Any, get: Getter, metric: Callable[[str], Metric]) -> float:
    fn = metric(evaluator.funcs[index])
    expected = evaluator.expected[index] if evaluator.expected else None
    if expected:
        return await _call(fn, result, await get(expected), **evaluator.options[index])
    return await _call(fn, result, **evaluator.options[index])


async def combine(
    evaluator: Evaluator,
    *,
    failed: bool,
    get: Getter,
    metric: Callable[[str], Metric],
    postconfig: Callable[[], Awaitable[None]] | None = None,
) -> float:
    """The score; ``failed``: the agent's last action was FAIL; ``get`` resolves a getter config."""
    if postconfig is not None:
        await postconfig()
    if evaluator.infeasible:
        return 1.0 if failed else 0.0
    if failed:
        return 0.0

    async def result_of(index: int) -> Any:
        config = evaluator.results[index]
        return await get(config) if config else None

    if evaluator.single:
        try:
            result = await result_of(0)
        except FileNotFoundError:
            return 0.0
        return await _value(evaluator, 0, result, get, metric)

    values: list[float] = []
    for index in range(len(evaluator.funcs)):
        try:
            result = await result_of(index)
        except FileNotFoundError:
            if evaluator.conj == "and":
                return 0.0
            result = None
        value = await _value(evaluator, index, result, get, metric)
        if evaluator.conj == "and" and value == 0.0:
            return 0.0
        if evaluator.conj == "or" and value == 1.0:
            return 1.0
        values.append(value)
    return sum(values) / len(values) if evaluator.conj == "and" else max(values)
