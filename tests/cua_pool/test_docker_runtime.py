"""The docker space runtime, against a real Docker engine: the session's (``support.docker``: the
one DOCKER_HOST names, or a dockerd started for the tests; skipped without dockerd, failed on CI)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from poolkit import Cluster, wait_for


@pytest.fixture
def engine(docker_image: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, str]]:
    import docker

    client, image = docker.from_env(), docker_image  # the desktop image has python3
    monkeypatch.setenv("CUA_POOL_DOCKER_IMAGE", image)
    before = {c.id for c in client.containers.list(all=True, filters={"label": "cua-pool.member"})}
    try:
        yield client, image
    finally:
        for container in client.containers.list(all=True, filters={"label": "cua-pool.member"}):
            if container.id not in before:
                container.remove(force=True)


def test_a_member_runs_in_a_container_with_its_space_mounted(engine: tuple[Any, str], cluster: Cluster) -> None:
    cluster.add_host("a")
    job = cluster.submit("basic.py::env", "RANK", "HOME", "CUA_POOL_SPACE", "PATH", runtime="docker")
    cluster.wait_state(job, "succeeded", timeout=60)
    value = json.loads(bytes(cluster.controller.result(job)["data"]))
    assert value["RANK"] == "0" and value["HOME"] == "/space/work" and value["CUA_POOL_SPACE"] == "/space"
    assert value["PATH"] != os.environ["PATH"]  # the image's own PATH, not the host's
    hello = cluster.submit("basic.py::hello", 2, "box", runtime="docker")
    cluster.wait_state(hello, "succeeded", timeout=60)
    assert cluster.logs(hello) == "box 0\nbox 1\n"


def test_cancel_removes_the_container(engine: tuple[Any, str], cluster: Cluster) -> None:
    client, _ = engine
    cluster.add_host("a")
    job = cluster.submit("basic.py::ticker", runtime="docker")
    wait_for("ticks", lambda: "tick 2" in cluster.logs(job), timeout=60)
    name = f"cua-space-{job}.1.0"
    assert client.containers.get(name).status == "running"
    cluster.controller.cancel(job)
    cluster.wait_state(job, "cancelled", timeout=30)
    wait_for("the container gone", lambda: not client.containers.list(all=True, filters={"name": name}), timeout=15)
