"""Fixtures of the Cua interop tests: Cua's own PyPI packages (in ``.venv/cua-sdk``, made by
scripts/setup.sh), our endpoint as its command line starts it, and a real Cua computer-server on an
Xvfb display of its own."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cua_bench_cua.client import ServerUnreachable, call_once

ROOT = Path(__file__).resolve().parents[2]
SDK_PYTHON = ROOT / ".venv" / "cua-sdk" / "bin" / "python"
DRIVE = Path(__file__).with_name("sdk_drive.py")
SDK_PORT = 8000  # Cua's SDK talks to localhost:8000 in host-server mode, and nowhere else


def need(problem: str | None) -> None:
    """Skip for a missing prerequisite; with CI set, fail."""
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {problem}")
    pytest.skip(problem)


def sdk_problem() -> str | None:
    if not SDK_PYTHON.exists():
        return f"Cua's SDK venv {SDK_PYTHON} is missing: run bash scripts/setup.sh"
    return None


def desktop_problem() -> str | None:
    from cua_bench.backends.local import unavailable

    problem = unavailable()
    if problem:
        return problem
    if shutil.which("gnome-screenshot") is None:
        return "Cua's computer-server takes screenshots with gnome-screenshot: apt-get install gnome-screenshot"
    return None


def cua_env() -> dict[str, str]:
    """Our environment, less what switches Cua's code to its cloud mode, and its telemetry off."""
    env = {k: v for k, v in os.environ.items() if k != "CONTAINER_NAME"}
    env["CUA_TELEMETRY_DISABLED"] = "1"
    return env


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def drive(*steps: list[Any], timeout: float = 120) -> list[Any]:
    """Cua's SDK (``Computer(use_host_computer_server=True)``) runs ``steps`` against localhost:8000."""
    proc = subprocess.run(
        [str(SDK_PYTHON), str(DRIVE), json.dumps(list(steps))],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=cua_env(),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: list[Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def stop(proc: subprocess.Popen[Any], timeout: float = 10.0) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextlib.contextmanager
def serve(*args: str, port: int = SDK_PORT) -> Iterator[tuple[str, str]]:
    """``cua-bench-cua serve ARGS --port PORT``: yields (its URL, its env server's address)."""
    if not port_free(port):
        pytest.fail(f"port {port} is taken: Cua's SDK only talks to localhost:{port}; stop what listens there")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cua_bench_cua", "serve", *args, "--port", str(port)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("ready "), f"the endpoint did not start: {line!r}"
        url, env = line.removeprefix("ready ").split(" env=")
        yield url, env
    finally:
        stop(proc, 30)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.fixture
def computer_server(tmp_path: Path) -> Iterator[str]:
    """A real Cua computer-server (PyPI 0.1.25) on an Xvfb display of its own; its URL."""
    need(sdk_problem() or desktop_problem())
    from cua_bench.backends.local.display import start_desktop

    root = tmp_path / "cua-desktop"
    home = root / "home"
    home.mkdir(parents=True)
    desktop = start_desktop(root, 1280, 800, cua_env())
    port = free_port()
    log = open(root / "computer-server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [str(SDK_PYTHON), "-m", "computer_server", "--host", "127.0.0.1", "--port", str(port)],
        env={**cua_env(), "DISPLAY": desktop.display, "HOME": str(home)},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(ServerUnreachable):
                call_once(url, "version", timeout=2)
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"Cua's computer-server did not start: {(root / 'computer-server.log').read_text()[-2000:]}"
                )
            time.sleep(0.2)
        yield url
    finally:
        stop(proc, 5)
        log.close()
        desktop.stop()


@pytest.fixture
def sdk() -> Any:
    """``drive(*steps)``: Cua's SDK against localhost:8000 (skipped without its venv; failed in CI)."""
    need(sdk_problem())
    return drive


@pytest.fixture
def endpoint() -> Any:
    """``serve(*args)``: our endpoint on port 8000, as ``cua-bench-cua serve ARGS`` starts it."""
    return serve


@pytest.fixture
def desktop() -> None:
    """What a real X desktop and Cua's computer-server need on this host."""
    need(desktop_problem())


@pytest.fixture
def port() -> int:
    """A free port, for an endpoint no SDK has to find."""
    return free_port()
