"""A Docker Engine and the desktop image for the docker backend's tests.

The engine is the one ``DOCKER_HOST`` names when it answers; otherwise the tests start a dockerd
of their own (data root in a temp dir) and stop it at the end. The image is built once per
session when missing (a few minutes: debootstrap, then the apps). Without dockerd the tests skip,
unless CI is set: there they fail, since CI must run them for real.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.docker import ours

from cua_bench.backends.base import BackendError
from cua_bench_docker import IMAGE, DockerBackend, build_image, connect
from cua_bench_docker.daemon import PrivateEngine
from cua_bench_docker.image import image_exists


def _unavailable(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but the docker backend cannot be tested: {why}")
    pytest.skip(why)


@pytest.fixture(scope="session")
def docker_host() -> Iterator[str]:
    try:
        connect(timeout=3)
    except BackendError:
        pass
    else:
        yield os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
        return
    if shutil.which("dockerd") is None:
        _unavailable("dockerd is not installed (apt-get install docker.io)")
    folder = Path(tempfile.mkdtemp(prefix="cua-dockerd-"))
    engine = PrivateEngine(folder)
    try:
        host = engine.start()
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("DOCKER_HOST", host)
            yield host
    finally:
        engine.remove()
    assert not folder.exists(), f"the test engine left {folder} behind"


@pytest.fixture(scope="session")
def docker_image(docker_host: str) -> str:
    client = connect()
    if not image_exists(client, IMAGE):
        build_image(client)
    return IMAGE


@pytest.fixture(autouse=True)
def _engine_for_this_test(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test here talks to the session's engine (the root conftest resets environments per test)."""
    if "docker_host" in request.fixturenames:
        monkeypatch.setenv("DOCKER_HOST", request.getfixturevalue("docker_host"))


@pytest.fixture
def backend(docker_image: str) -> Iterator[DockerBackend]:
    impl = DockerBackend()
    yield impl
    leftovers = ours(impl.client)
    for container in leftovers:
        container.remove(force=True)
    assert [c.name for c in leftovers] == [], "containers left behind"
