"""Shared fixtures: every test gets private config and runtime folders, never the user's own."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.docker import docker_host, docker_image  # noqa: F401 - one engine for every test folder


@pytest.fixture(scope="session", autouse=True)
def private_session_dirs() -> Iterator[Path]:
    """Session- and module-scoped fixtures (a local computer, the Docker engine) start before any
    test's own folders exist: they get a private runtime and config folder for the whole session,
    never the user's. Function-scoped tests then get their own (below)."""
    saved = {name: os.environ.get(name) for name in ("CUA_RUNTIME_DIR", "CUA_CONFIG_DIR", "CUA_LOCAL_ISOLATE")}
    root = Path(tempfile.mkdtemp(prefix="cua-s-", dir="/tmp"))
    os.environ["CUA_RUNTIME_DIR"] = str(root / "run")
    os.environ["CUA_CONFIG_DIR"] = str(root / "config")
    # Local environments share this host in tests that look at their folders and processes from it;
    # tests of isolation (the default for root) set CUA_LOCAL_ISOLATE themselves.
    os.environ["CUA_LOCAL_ISOLATE"] = "0"
    (root / "run").mkdir(mode=0o700)
    yield root
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(autouse=True)
def private_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    # ipc socket paths are limited to ~100 bytes, and pytest's tmp_path can be longer.
    runtime = Path(tempfile.mkdtemp(prefix="cua-t-", dir="/tmp"))
    monkeypatch.setenv("CUA_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("CUA_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("CUA_BUS_PUBLISH", raising=False)
    monkeypatch.delenv("CUA_BUS_SUBSCRIBE", raising=False)
    yield runtime
    shutil.rmtree(runtime, ignore_errors=True)


FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"


@pytest.fixture(scope="session")
def shared_fixtures() -> Path:
    """The real public samples in ../shared/fixtures: skipped on a user's clone, required in CI."""
    if not FIXTURES.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the shared fixtures are missing: expected {FIXTURES}")
        pytest.skip(f"the shared fixtures folder {FIXTURES} is absent (it is beside the repository in CI)")
    return FIXTURES
