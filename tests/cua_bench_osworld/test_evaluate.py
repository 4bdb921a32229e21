"""Combining metric values into a score, exactly as OSWorld's ``DesktopEnv.evaluate``.

Every row of the table runs through our ``combine`` and, when desktop-env is installed, through
OSWorld's own ``DesktopEnv.evaluate`` (its source, compiled on its own: the module it lives in
imports the whole VM stack) with the same getters and metrics.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import logging
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cua_bench_osworld.evaluate import combine
from cua_bench_osworld.loader import OSWorldFormatError, load_task

MISSING = object()  # a result getter that raises FileNotFoundError


def _task(evaluator: dict[str, Any]) -> Any:
    return load_task(Path("/t/os/x.json"), {"id": "x", "instruction": "do", "evaluator": evaluator})


def _getters(table: dict[str, Any], calls: list[str]) -> Callable[[dict[str, Any]], Any]:
    def get(config: dict[str, Any]) -> Any:
        calls.append(config["key"])
        value = table[config["key"]]
        if value is MISSING:
            raise FileNotFoundError(config["key"])
        return value

    return get


def _metric(name: str) -> Callable[..., float]:
    """Metrics named by what they return: "m1" gives 1.0, "m0.5" gives 0.5; "echo" gives its result."""

    def metric(result: Any, expected: Any = None, **options: Any) -> float:
        if name == "echo":
            return 0.0 if result is None else float(result)
        if name == "opts":
            return float(options["value"]) if expected is None else float(expected)
        return float(name[1:])

    return metric


def _evaluator(funcs: str | list[str], conj: str | None = None, **extra: Any) -> dict[str, Any]:
    names = [funcs] if isinstance(funcs, str) else funcs
    keys = [{"type": "fake", "key": f"r{i}"} for i in range(len(names))]
    evaluator: dict[str, Any] = {"func": funcs, "result": keys[0] if isinstance(funcs, str) else keys, **extra}
    if conj:
        evaluator["conj"] = conj
    return evaluator


# (evaluator, getter values, last action was FAIL, score)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], bool, float]] = [
    ("infeasible, agent failed", {"func": "infeasible"}, {}, True, 1.0),
    ("infeasible, agent done", {"func": "infeasible"}, {}, False, 0.0),
    ("feasible, agent failed", _evaluator("m1"), {"r0": 1}, True, 0.0),
    ("one metric as is", _evaluator("m0.5"), {"r0": 1}, False, 0.5),
    ("one metric, result missing", _evaluator("m1"), {"r0": MISSING}, False, 0.0),
    ("one metric gives its result", _evaluator("echo"), {"r0": 0.25}, False, 0.25),
    ("and: mean", _evaluator(["m1", "m0.5"], "and"), {"r0": 1, "r1": 1}, False, 0.75),
    ("and is the default", _evaluator(["m1", "m0.5"]), {"r0": 1, "r1": 1}, False, 0.75),
    ("and: a zero wins", _evaluator(["m1", "m0", "m1"], "and"), {"r0": 1, "r1": 1, "r2": 1}, False, 0.0),
    ("and: missing file is 0", _evaluator(["m1", "m1"], "and"), {"r0": 1, "r1": MISSING}, False, 0.0),
    ("and: all ones", _evaluator(["m1", "m1"], "and"), {"r0": 1, "r1": 1}, False, 1.0),
    ("or: a one wins", _evaluator(["m0", "m1", "m0.5"], "or"), {"r0": 1, "r1": 1, "r2": 1}, False, 1.0),
    ("or: else the max", _evaluator(["m0.25", "m0.5", "m0"], "or"), {"r0": 1, "r1": 1, "r2": 1}, False, 0.5),
    ("or: all zero", _evaluator(["m0", "m0"], "or"), {"r0": 1, "r1": 1}, False, 0.0),
    ("or, agent failed", _evaluator(["m1", "m1"], "or"), {"r0": 1, "r1": 1}, True, 0.0),
    ("and of results", _evaluator(["echo", "echo"], "and"), {"r0": 0.5, "r1": 0.25}, False, 0.375),
]


@pytest.mark.parametrize(("label", "evaluator", "values", "failed", "score"), CASES, ids=[c[0] for c in CASES])
def test_combine_table(
    label: str, evaluator: dict[str, Any], values: dict[str, Any], failed: bool, score: float
) -> None:
    task = _task(evaluator)
    calls: list[str] = []
    get = _getters(values, calls)

    async def aget(config: dict[str, Any]) -> Any:
        return get(config)

    got = asyncio.run(combine(task.evaluator, failed=failed, get=aget, metric=_metric))
    assert got == score
    official = _osworld_evaluate()
    if official is not None:
        assert _run_osworld(official, evaluator, values, failed) == score


def test_and_stops_at_the_first_zero_and_or_at_the_first_one() -> None:
    for conj, funcs, stop in (("and", ["m1", "m0", "m1"], 2), ("or", ["m0", "m1", "m0"], 2)):
        calls: list[str] = []
        get = _getters({"r0": 1, "r1": 1, "r2": 1}, calls)

        async def aget(config: dict[str, Any], get: Any = get) -> Any:
            return get(config)

        task = _task(_evaluator(funcs, conj))
        asyncio.run(combine(task.evaluator, failed=False, get=aget, metric=_metric))
        assert calls == [f"r{i}" for i in range(stop)], conj


def test_expected_and_options_reach_the_metric() -> None:
    seen: list[tuple[Any, ...]] = []

    def metric(name: str) -> Callable[..., float]:
        def fn(*args: Any, **kwargs: Any) -> float:
            seen.append((name, args, kwargs))
            return 1.0

        return fn

    evaluator = {
        "func": ["a", "b"],
        "result": [{"type": "fake", "key": "r0"}, {"type": "fake", "key": "r1"}],
        "expected": [{"type": "fake", "key": "e0"}, None],
        "options": [{"x": 1}, None],
    }
    values = {"r0": "R0", "r1": "R1", "e0": "E0"}

    async def aget(config: dict[str, Any]) -> Any:
        return values[config["key"]]

    assert asyncio.run(combine(_task(evaluator).evaluator, failed=False, get=aget, metric=metric)) == 1.0
    assert seen == [("a", ("R0", "E0"), {"x": 1}), ("b", ("R1",), {})]


def test_postconfig_runs_first_even_for_infeasible_tasks() -> None:
    ran: list[str] = []

    async def postconfig() -> None:
        ran.append("postconfig")

    async def aget(config: dict[str, Any]) -> Any:
        raise AssertionError("no getter for infeasible tasks")

    task = _task({"func": "infeasible"})
    assert asyncio.run(combine(task.evaluator, failed=True, get=aget, metric=_metric, postconfig=postconfig)) == 1.0
    assert ran == ["postconfig"]


def test_or_with_a_missing_result_gives_the_metric_none() -> None:
    # OSWorld reuses the previous result here (or fails on the first): we give None instead.
    async def aget(config: dict[str, Any]) -> Any:
        if config["key"] == "r0":
            raise FileNotFoundError
        return 1.0

    task = _task(_evaluator(["echo", "echo"], "or"))
    assert asyncio.run(combine(task.evaluator, failed=False, get=aget, metric=_metric)) == 1.0
    task = _task(_evaluator(["echo", "m0.5"], "or"))

    async def missing(config: dict[str, Any]) -> Any:
        raise FileNotFoundError

    assert asyncio.run(combine(task.evaluator, failed=False, get=missing, metric=_metric)) == 0.5


@pytest.mark.parametrize(
    ("evaluator", "fragment"),
    [
        ({"func": []}, "non-empty list"),
        ({"func": "exact_match"}, "evaluator.result is missing"),
        ({"func": ["a", "b"], "result": [{"type": "rule"}]}, "list of 2"),
        ({"func": "a", "result": {"type": "rule"}, "conj": "xor"}, "conj"),
        ({"func": "a", "result": {"path": "x"}}, "getter object"),
        ({"func": ["a"], "result": [{"type": "rule"}], "options": ["x"]}, "options[0]"),
    ],
)
def test_malformed_evaluators_are_refused(evaluator: dict[str, Any], fragment: str) -> None:
    with pytest.raises(OSWorldFormatError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        _task(evaluator)


# -- OSWorld's own DesktopEnv.evaluate ------------------------------------------------------------


def _osworld_evaluate() -> Callable[..., Any] | None:
    """``DesktopEnv.evaluate`` compiled from desktop-env's source, or None when it is not installed."""
    spec = importlib.util.find_spec("desktop_env")
    if spec is None or not spec.submodule_search_locations:
        return None
    source = Path(next(iter(spec.submodule_search_locations))) / "desktop_env.py"
    tree = ast.parse(source.read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "DesktopEnv":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "evaluate":
                    module = ast.Module(body=[item], type_ignores=[])
                    namespace: dict[str, Any] = {"logger": logging.getLogger("osworld-test")}
                    exec(compile(module, str(source), "exec"), namespace)
                    return namespace["evaluate"]  # type: ignore[no-any-return]
    return None


def _run_osworld(
    evaluate: Callable[..., Any], evaluator: dict[str, Any], values: dict[str, Any], failed: bool
) -> float:
    def getter(config: dict[str, Any]) -> Any:
        def get(env: Any, cfg: dict[str, Any]) -> Any:
            value = values[cfg["key"]]
            if value is MISSING:
                raise FileNotFoundError(cfg["key"])
            return value

        return get

    funcs = evaluator["func"]
    many = isinstance(funcs, list)
    result = evaluator.get("result")
    env = SimpleNamespace(
        evaluator=evaluator,
        setup_controller=SimpleNamespace(setup=lambda config, proxy: True),
        enable_proxy=False,
        is_environment_used=False,
        action_history=["CLICK", "FAIL"] if failed else ["CLICK", "DONE"],
        metric=[_metric(f) for f in funcs] if many else (_metric(funcs) if funcs != "infeasible" else None),
        metric_conj=evaluator.get("conj", "and"),
        result_getter=[getter(r) for r in result] if many else (getter(result) if result else None),
        expected_getter=[None] * len(funcs) if many else None,
        metric_options=[{}] * len(funcs) if many else {},
    )
    return float(evaluate(env))


def test_osworld_evaluate_is_found_when_installed() -> None:
    if importlib.util.find_spec("desktop_env") is None:
        pytest.skip("desktop-env is not installed (pip install --no-deps desktop-env): only our side of the table ran")
    assert _osworld_evaluate() is not None
