"""Cua Bench's HTML task windows in the docker backend's container: Chromium app windows, the same
session code as on ``local`` (tests/cua_bench/test_html_windows.py), the task mounted read-only."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support.html_tasks import CLICK_SUBMIT

import cua_bench as cb
from cua_bench_docker import DockerBackend


def test_a_cua_style_html_task_in_a_container_oracle_one_nothing_zero(
    backend: DockerBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = tmp_path / "tasks" / "click-submit"
    task.mkdir(parents=True)
    (task / "main.py").write_text(textwrap.dedent(CLICK_SUBMIT))
    monkeypatch.setenv("CUA_DOCKER_MOUNTS", str(tmp_path / "tasks"))
    with cb.make(str(task), backend="docker", obs="none") as env:
        obs, _ = env.reset()
        assert (obs["width"], obs["height"]) == (800, 600)  # the task's computer block
        assert env.evaluate() == 0.0
        assert [w["title"] for w in env.session("windows")] == ["Send form"]
        assert env.solve()["reward"] == 1.0  # click_element: a real click at the button, in the container
        env.reset()
        assert env.evaluate() == 0.0
