"""Shared fixtures: every test gets private config and runtime folders, never the user's own."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from support.docker import docker_host, docker_image  # noqa: F401 - one engine for every test folder

# No per-example deadline: on a loaded machine one example can take longer than hypothesis's 200 ms (a
# text round trip of the action codec took 254 ms while CI ran beside it). Timing belongs in benchmarks.
settings.register_profile("cua", deadline=None)
settings.load_profile("cua")

# Two cores, three test workers: a second BLAS/OpenMP thread buys the tiny test models nothing (a GRPO
# run took 76 s with one thread or two, 108 against 144 CPU seconds) and oversubscribes the cores when
# both workers train. Set before anything imports torch; subprocesses (ranks, pool jobs) inherit it.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# Shared by the tests of a module, and cheap: no reason to keep its tests on one worker.
_CHEAP_MODULE_FIXTURES = {"root"}
# Fixtures that listen on localhost:8000, the one port Cua's SDK talks to (tests/cua_bench_cua): tests
# using them on two workers at once found the port taken (a CI run failed so).
_PORT_8000 = {"endpoint", "sdk"}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks to group the tests
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The test command runs pytest-xdist workers (``-n 3 --dist loadgroup``); what is costly to set up
    stays on one of them. Tests of the Docker engine share one worker (the engine and its images are
    made once per worker session), and so do the tests of a module with a module-scoped fixture (a
    pool in network namespaces, a trained model): set up twice, it would cost more than it saves.
    Tests that listen on localhost:8000 share one worker too. A module that touches the same host files
    as another says so with its own ``xdist_group``."""
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        info = getattr(item, "_fixtureinfo", None)
        shared = [
            name
            for name, defs in (info.name2fixturedefs.items() if info is not None else ())
            if defs and defs[-1].scope in ("package", "module", "class") and name not in _CHEAP_MODULE_FIXTURES
        ]
        fixtures = set(getattr(item, "fixturenames", ()))
        if "docker_host" in fixtures:
            item.add_marker(pytest.mark.xdist_group("docker"))
        elif fixtures & _PORT_8000:
            item.add_marker(pytest.mark.xdist_group("localhost-8000"))
        elif shared:
            item.add_marker(pytest.mark.xdist_group(_module(item)))
    # xdist hands out groups first (largest first), then single tests in this order: the modules with
    # slow tests go first, so the run does not end on one worker with a minute-long test to go.
    slow = {_module(item) for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: _module(item) not in slow)


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


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


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every local environment of a module lives under here, so leftovers are ours to find."""
    path = tmp_path_factory.mktemp("desktop-envs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CUA_LOCAL_ROOT", str(path))
        yield path


FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"


@pytest.fixture(scope="session")
def shared_fixtures() -> Path:
    """The real public samples in ../shared/fixtures: skipped on a user's clone, required in CI."""
    if not FIXTURES.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the shared fixtures are missing: expected {FIXTURES}")
        pytest.skip(f"the shared fixtures folder {FIXTURES} is absent (it is beside the repository in CI)")
    return FIXTURES
