"""Positive controls: a real OSWorld task, with the work done, scores 1.0; without it, 0.

One control per metric family the supported published tasks use (``support.osworld_controls``
holds them and says how a control is built). Each runs twice on a real ``local`` computer through
the env server, as a run does: once with its setup leaving the state the instruction asks for (the
score must be exactly 1.0), once with the state before the work (exactly 0.0, scored by the metric,
not by a missing file; at most a stated bound for a metric that returns a similarity, not a verdict). Both episodes must finish without a setup failure: a platform failure is an
error (the step raises), never a 0 that would let the second half pass.

Controls whose getter needs a program only OSWorld's image has run in ``bench/osworld.py`` on the
docker ``osworld`` image instead; ``test_every_family_has_a_control`` says which.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.osworld_controls import CONTROLS, Control, build_variant, complete_mirror, family_of

from cua_bench.backends.base import Computer
from cua_bench.backends.local import LocalBackend, unavailable
from cua_bench.client import EnvClient
from cua_bench_osworld import check_support, load_task
from cua_bench_osworld.loader import find_task_files
from cua_bench_osworld.official import INSTALL_HINT, official_metrics
from cua_core.actions import Done, Fail

PROBLEM = unavailable()
LOCAL = [c for c in CONTROLS if c.backend == "local"]


def _needs_local() -> None:
    """The local backend, and OSWorld's metric functions (the controls score with them)."""
    problem = f"local backend unavailable: {PROBLEM}" if PROBLEM is not None else None
    if problem is None and not official_metrics().functions:
        problem = f"OSWorld's metric functions are not installed: {INSTALL_HINT}"
    if problem is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the controls cannot run here: {problem}")
        pytest.skip(problem)


@pytest.fixture(scope="module")
def computer(root: Path) -> Iterator[Computer]:
    _needs_local()
    backend = LocalBackend()
    computer = backend.provision(width=800, height=600)
    yield computer
    backend.teardown(computer)


@pytest.fixture(scope="module")
def published(shared_fixtures: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """The families of the metric functions of every published task supported given a complete
    mirror (an empty file for each remote URL), with the tasks that use each."""
    tasks = [load_task(p) for folder in ("osworld", "osworld_more") for p in find_task_files(shared_fixtures / folder)]
    mirror = complete_mirror(tasks, tmp_path_factory.mktemp("mirror"))
    official = official_metrics().functions
    families: dict[str, list[str]] = {}
    for task in tasks:
        if check_support(task, mirror=mirror).supported:
            for name in set(task.evaluator.funcs):
                families.setdefault(family_of(name, official), []).append(task.id)
    return families


def test_every_family_has_a_control(published: dict[str, list[str]]) -> None:
    counts = Counter({family: len(ids) for family, ids in published.items()})
    assert counts["table"] > 40 and counts["slides"] > 30  # the biggest, as measured on 2026-12-01
    covered = {c.family for c in CONTROLS}
    missing = sorted(set(published) - covered)
    assert not missing, f"metric families the supported tasks use without a positive control: {missing}"
    for control in CONTROLS:
        assert control.family in published, f"{control.task}: no supported task uses family {control.family}"
        if control.backend != "local":
            # Where a control cannot run in CI, it says why (bench/osworld.py runs it on docker-osworld).
            assert control.backend == "docker-osworld" and control.why_there, control


def test_controls_are_built_from_the_task_not_around_it(shared_fixtures: Path, tmp_path: Path) -> None:
    """The variant keeps the task's evaluator (functions, options, result getters) and only
    swaps the gold files for local ones and drops the app-driving postconfig."""
    import json

    for control in CONTROLS:
        original = json.loads((shared_fixtures / control.task).read_text())["evaluator"]
        variant = json.loads(
            build_variant(control, shared_fixtures, tmp_path / control.family, worked=True).read_text()
        )
        evaluator = variant["evaluator"]
        assert evaluator["func"] == original["func"] and evaluator.get("options") == original.get("options")
        assert evaluator.get("result") == original.get("result") and "postconfig" not in evaluator
        gold = [c for c in json.dumps(evaluator.get("expected")).split('"') if c.startswith("http")]
        assert not gold, f"{control.task}: a gold file still points at the network: {gold}"


def _score(env: EnvClient, task: Path, control: Control) -> float:
    _, info = env.reset(options={"task": str(task), "observes": "none"})
    failures = info.get("task", {}).get("metadata", {}).get("setup_failures", [])
    assert not failures, f"{task.name}: setup failed: {failures}"
    _, reward, terminated, _, _ = env.step([Fail() if control.finish == "fail" else Done()])
    assert terminated
    return float(reward)


@pytest.mark.parametrize("control", LOCAL, ids=[f"{c.family}-{Path(c.task).name[:8]}" for c in LOCAL])
def test_positive_control_on_local(control: Control, computer: Computer, shared_fixtures: Path, tmp_path: Path) -> None:
    worked = build_variant(control, shared_fixtures, tmp_path, worked=True)
    before = build_variant(control, shared_fixtures, tmp_path, worked=False)
    with EnvClient(computer.address, step_timeout=120) as env:
        assert _score(env, worked, control) == 1.0, f"{control.task}: the work done scored below 1"
        if control.finish == "fail":
            # Infeasible: the work is to say so (FAIL); ending with DONE instead scores 0.
            assert _score(env, worked, Control(**{**control.__dict__, "finish": "done"})) == 0.0
        else:
            score = _score(env, before, control)
            assert score <= control.before_at_most, f"{control.task}: no work scored {score}"
