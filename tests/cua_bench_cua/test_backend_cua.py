"""The ``cua`` backend against a real Cua computer-server (PyPI 0.1.25) on an Xvfb display: the
backend contract, and our desktop tasks scoring as they do on ``local``."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import pytest

from cua_bench import make
from cua_bench.backends.base import BackendError
from cua_bench.conformance import check_backend
from cua_bench.registry import backends

pytestmark = pytest.mark.slow


def test_the_cua_backend_is_registered_by_entry_point() -> None:
    assert backends()["cua"].__module__ == "cua_bench_cua.backend"


def test_provision_without_a_server_names_the_url_and_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_COMPUTER_SERVER_URL", "http://127.0.0.1:9")  # discard: nothing listens
    with pytest.raises(
        BackendError, match=r"no Cua computer-server answers at http://127\.0\.0\.1:9.*CUA_COMPUTER_SERVER_URL"
    ):
        backends()["cua"]().provision()


def test_conformance(computer_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_COMPUTER_SERVER_URL", computer_server)
    try:
        assert check_backend("cua", width=1280, height=800) == []
    finally:
        with contextlib.suppress(FileNotFoundError):
            Path("/tmp/conformance.txt").unlink()  # the server's computer is this host: its /tmp is ours


def rewards(task: str, backend: str) -> tuple[float, float]:
    """(the oracle's reward, doing nothing's) on variant 0."""
    with make(task, backend=backend, step_timeout=180) as env:
        env.reset(options={"variant": 0, "observes": "none"})
        oracle = float(env.solve()["reward"])
        env.reset(options={"variant": 0, "observes": "none"})
        return oracle, env.evaluate()


@pytest.mark.parametrize("task", ["desktop/xterm-create-file", "desktop/mousepad-append-line"])
def test_desktop_tasks_score_as_on_local(task: str, computer_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    program = task.split("/")[1].split("-", maxsplit=1)[0]
    if not os.path.exists(f"/usr/bin/{program}"):
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {program} is not installed (apt-get install {program})")
        pytest.skip(f"{program} is not installed (apt-get install {program})")
    local = rewards(task, "local")
    monkeypatch.setenv("CUA_COMPUTER_SERVER_URL", computer_server)
    assert rewards(task, "cua") == local == (1.0, 0.0)


def test_the_cua_backend_drives_our_own_endpoint(desktop: None, endpoint: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways at once: our endpoint serves a local desktop, and the cua backend, as a client of
    that endpoint, runs a desktop task on it (WebSocket, run_command, files, keys, xdotool windows)."""
    with endpoint("--backend", "local") as (url, _):
        monkeypatch.setenv("CUA_COMPUTER_SERVER_URL", url)
        monkeypatch.setenv("CUA_COMPUTER_SERVER_TYPING", "type_text")  # ours types whole strings
        assert rewards("desktop/xterm-create-file", "cua") == (1.0, 0.0)


def test_one_environment_per_server(computer_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_COMPUTER_SERVER_URL", computer_server)
    first, second = backends()["cua"](), backends()["cua"]()
    computer = first.provision()
    try:
        with pytest.raises(BackendError, match=r"already serves an environment .*--max-parallel 1"):
            second.provision()
    finally:
        first.teardown(computer)
    again = second.provision()  # free once the first is torn down
    second.teardown(again)
