"""Parity between backends: the comparison, and `cua-bench parity` on sim and local."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.two_desktops import make_note_task

from cua_bench.backends.local import unavailable
from cua_bench.cli import main
from cua_bench.conformance import CONFORMANCE_TASK
from cua_bench.parity import compare
from cua_bench.summary import EpisodeResult, load_results


def result(key: str, status: str = "ok", reward: float | None = 1.0, error: str | None = None) -> EpisodeResult:
    return EpisodeResult(key, key.split("/", maxsplit=1)[0], 0, "test", status, reward, error=error)


def test_compare_names_every_difference() -> None:
    left = {k: result(k) for k in ("a/test/0", "b/test/0", "c/test/0", "d/test/0")}
    right = {
        "a/test/0": result("a/test/0"),
        "b/test/0": result("b/test/0", reward=0.5),
        "c/test/0": result("c/test/0", "error", None, "ServerLost: gone"),
        "e/test/0": result("e/test/0"),
    }
    report = compare(left, right, ("local", "docker"))
    assert report.episodes == 5 and not report.same
    assert [(d.key, d.left, d.right) for d in report.differences] == [
        ("b/test/0", "1", "0.5"),
        ("c/test/0", "1", "error (ServerLost: gone)"),
        ("d/test/0", "1", "missing"),
        ("e/test/0", "missing", "1"),
    ]
    assert "local vs docker: 5 episodes, 4 differ" in report.format()
    assert compare(left, dict(left), ("x", "y")).same


@pytest.mark.parametrize("pair", ["sim", "sim,sim", "sim,local,docker", ","])
def test_bad_backend_pairs_are_refused(pair: str) -> None:
    out = CliRunner().invoke(main, ["parity", str(CONFORMANCE_TASK), "--backends", pair])
    assert out.exit_code == 2 and "give two different backends" in out.output


def test_an_unknown_backend_is_named() -> None:
    out = CliRunner().invoke(main, ["parity", str(CONFORMANCE_TASK), "--backends", "sim,nope"])
    assert out.exit_code == 1 and "unknown backend 'nope'" in out.output


def test_sim_and_local_agree_on_a_real_task_with_the_oracle(tmp_path: Path) -> None:
    # Not two zeros (noop on the conformance task, as this test once compared): the oracle's 1.0 on
    # a task both desktops host, every variant, must match episode by episode.
    problem = unavailable()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the local backend cannot run: {problem}")
        pytest.skip(problem)
    task = make_note_task(tmp_path / "note")
    runs = tmp_path / "runs"
    out = CliRunner().invoke(main, ["parity", str(task), "--backends", "sim,local", "--output", str(runs)])
    assert out.exit_code == 0, out.output
    assert "sim vs local: 2 episodes, 0 differ" in out.output
    for backend in ("sim", "local"):
        rewards = [r.reward for r in load_results(runs / backend / "episodes.jsonl").values()]
        assert rewards == [1.0, 1.0], (backend, rewards)
