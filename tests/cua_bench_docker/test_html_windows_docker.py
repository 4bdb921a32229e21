"""Cua Bench's HTML task windows in the docker backend's container: Chromium app windows, the same
session code as on ``local`` (tests/cua_bench/test_html_windows.py), the task mounted read-only."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from support.html_tasks import CLICK_SUBMIT

import cua_bench as cb
from cua_bench.runner import RunConfig, Runner
from cua_bench.summary import load_results
from cua_bench_docker import DockerBackend


def test_a_cua_style_html_task_in_a_container_oracle_one_nothing_zero(
    backend: DockerBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = tmp_path / "tasks" / "click-submit"
    task.mkdir(parents=True)
    (task / "main.py").write_text(textwrap.dedent(CLICK_SUBMIT))
    monkeypatch.setenv("CUA_DOCKER_MOUNTS", str(tmp_path / "tasks"))
    with cb.make(str(task), backend="docker", observes="none") as env:
        obs, _ = env.reset()
        assert (obs["width"], obs["height"]) == (800, 600)  # the task's computer block
        assert env.evaluate() == 0.0
        assert [w["title"] for w in env.session("windows")] == ["Send form"]
        assert env.solve()["reward"] == 1.0  # click_element: a real click at the button, in the container
        env.reset()
        assert env.evaluate() == 0.0


@pytest.mark.parametrize("os_type", ["macos", "win11"])
def test_cua_style_tasks_on_the_simulated_provider_in_a_container(
    docker_image: str, os_type: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Cua-style form, slider and menu (tests/support/cua_style) as Cua's simulated provider: the themed
    desktop drawn by the container's Chromium; every oracle scores 1 and doing nothing 0."""
    monkeypatch.delenv("CUA_DOCKER_MOUNTS", raising=False)
    tasks = Path(shutil.copytree(Path(__file__).parents[1] / "support" / "cua_style", tmp_path / "tasks"))
    for module in tasks.glob("*/main.py"):
        module.write_text(module.read_text().replace('"native", "linux"', f'"simulated", "{os_type}"'))
    for agent, reward in (("oracle", 1.0), ("noop", 0.0)):
        output = tmp_path / agent
        Runner(RunConfig(str(tasks), output, "docker", agent=agent, split="train", max_parallel=2, record=False)).run()
        results = load_results(output / "episodes.jsonl").values()
        assert len(results) == 6 and {(r.status, r.reward) for r in results} == {("ok", reward)}, results
