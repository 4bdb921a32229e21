"""The docker backend's tests run on the session's engine and image (``support.docker``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.docker import ours

from cua_bench_docker import DockerBackend


@pytest.fixture
def backend(docker_image: str) -> Iterator[DockerBackend]:
    impl = DockerBackend()
    yield impl
    leftovers = ours(impl.client)
    for container in leftovers:
        container.remove(force=True)
    assert [c.name for c in leftovers] == [], "containers left behind"
