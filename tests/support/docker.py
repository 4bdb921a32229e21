"""One Docker Engine and the desktop image per test session, for every test that needs them.

The engine is the one ``DOCKER_HOST`` names when it answers; otherwise a dockerd of our own is
started (data root in a temp dir) and stopped and removed at the end of the session. The image is
built once when missing (a few minutes: debootstrap, then the apps). Without dockerd the tests
skip, unless CI is set: there they fail, since CI must run them for real. The fixtures are made
visible to every test folder by ``tests/conftest.py``, so the session has one engine, not one per
folder.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cua_bench.backends.base import BackendError
from cua_bench_docker import IMAGE, build_image, connect
from cua_bench_docker.backend import LABEL, OWNER
from cua_bench_docker.daemon import PrivateEngine
from cua_bench_docker.image import image_exists

__all__ = ["docker_host", "docker_image", "ours"]


def _unavailable(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but Docker cannot be tested: {why}")
    pytest.skip(why)


@pytest.fixture(scope="session")
def docker_host() -> Iterator[str]:
    """The engine's address; DOCKER_HOST names it for the rest of the session."""
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
    """The docker backend's desktop image (it has python3 too), built when missing."""
    client = connect()
    if not image_exists(client, IMAGE):
        build_image(client)
    return IMAGE


def ours(client: Any) -> list[Any]:
    """The docker backend's containers started by this test process (others may share the engine)."""
    mine = f"{OWNER}={os.uname().nodename}:{os.getpid()}"
    return list(client.containers.list(all=True, filters={"label": [f"{LABEL}=docker", mine]}))
