"""Cua's computer-server protocol: our endpoint against Cua's own server, measured in one run.

Both are driven by Cua's own SDK (PyPI cua-computer 0.4.10, ``Computer(os_type="linux",
use_host_computer_server=True)``, which talks REST to localhost:8000) on the same display: one
``local`` environment (Xvfb + openbox) is provisioned, our endpoint serves it
(``cua-bench-cua serve --env ADDRESS``), then Cua's computer-server 0.1.25 runs on its display, in
turns (both need port 8000), ``--rounds`` times each. Per turn: ``--n`` clicks on the empty
desktop, then ``--n`` screenshots (1280x800 PNG), each timed in the SDK from call to return.

Needs ``.venv/cua-sdk`` (bash scripts/setup.sh), Xvfb and openbox, and gnome-screenshot (Cua's
server screenshots with it). Last line: ``cua_endpoint_click_p50_ms=… cua_server_click_p50_ms=…
cua_endpoint_screenshot_p50_ms=… cua_server_screenshot_p50_ms=… click_ratio=… screenshot_ratio=…``
(ratios: ours / Cua's; targets ≤ 0.2 and ≤ 0.5).

Run: .venv/bin/python bench/interop.py [--n 30] [--rounds 2]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from cua_bench.backends.local import LocalBackend
from cua_bench_cua.client import ServerUnreachable, call_once

ROOT = Path(__file__).resolve().parents[1]
SDK_PYTHON = ROOT / ".venv" / "cua-sdk" / "bin" / "python"
DRIVE = ROOT / "tests" / "cua_bench_cua" / "sdk_drive.py"
PORT = 8000  # the SDK's, fixed


def cua_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CONTAINER_NAME"}  # it means Cua's cloud mode
    env["CUA_TELEMETRY_DISABLED"] = "1"
    return env


def wait_listening(proc: subprocess.Popen[bytes], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{what} exited with code {proc.returncode}")
        with contextlib.suppress(ServerUnreachable):
            call_once(f"http://127.0.0.1:{PORT}", "version", timeout=2)
            return
        time.sleep(0.2)
    sys.exit(f"{what} did not answer on port {PORT} within {timeout:g} s")


@contextlib.contextmanager
def running(argv: list[str], env: dict[str, str], what: str, log: Path) -> Iterator[None]:
    with open(log, "ab") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_listening(proc, what)
            yield
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:  # uvicorn waits for open connections
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def measure(n: int) -> tuple[list[float], list[float]]:
    """(click ms, screenshot ms) through Cua's SDK against whatever serves port 8000."""
    steps = [["time", n, "left_click", 640, 400], ["time", n, "screenshot"]]
    proc = subprocess.run(
        [str(SDK_PYTHON), str(DRIVE), json.dumps(steps)], capture_output=True, text=True, env=cua_env(), check=False
    )
    if proc.returncode != 0:
        sys.exit(f"the SDK failed: {proc.stderr[-2000:]}")
    clicks, shots = json.loads(proc.stdout.strip().splitlines()[-1])
    return clicks, shots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30, help="clicks and screenshots per turn")
    parser.add_argument("--rounds", type=int, default=2, help="turns of each server, alternating")
    args = parser.parse_args()
    if not SDK_PYTHON.exists():
        sys.exit(f"Cua's SDK venv {SDK_PYTHON} is missing: run bash scripts/setup.sh")
    with socket.socket() as sock:
        if sock.connect_ex(("127.0.0.1", PORT)) == 0:
            sys.exit(f"port {PORT} is taken: Cua's SDK only talks to localhost:{PORT}")
    # Cua's own server runs on this host and draws on the env's display: the env shares this host.
    os.environ["CUA_LOCAL_ISOLATE"] = "0"
    backend = LocalBackend()
    computer = backend.provision(width=1280, height=800)
    work = Path(tempfile.mkdtemp(prefix="cua-interop-"))
    samples: dict[str, list[float]] = {"endpoint_click": [], "server_click": [], "endpoint_shot": [], "server_shot": []}
    try:
        number = (Path(computer.info["root"]) / "display").read_text().split()[0]
        ours = [sys.executable, "-m", "cua_bench_cua", "serve", "--env", computer.address, "--port", str(PORT)]
        cuas = [str(SDK_PYTHON), "-m", "computer_server", "--host", "127.0.0.1", "--port", str(PORT)]
        cua_env_vars = {**cua_env(), "DISPLAY": f":{number}", "HOME": str(work)}
        for turn in range(args.rounds):
            with running(ours, cua_env(), "our endpoint", work / "endpoint.log"):
                clicks, shots = measure(args.n)
            samples["endpoint_click"] += clicks
            samples["endpoint_shot"] += shots
            with running(cuas, cua_env_vars, "Cua's computer-server", work / "computer-server.log"):
                clicks, shots = measure(args.n)
            samples["server_click"] += clicks
            samples["server_shot"] += shots
            print(f"round {turn + 1}/{args.rounds} done", flush=True)
    finally:
        backend.teardown(computer)
    p50 = {name: statistics.median(values) for name, values in samples.items()}
    p90 = {name: statistics.quantiles(values, n=10)[-1] for name, values in samples.items()}
    print(f"{'':32} {'p50 ms':>9} {'p90 ms':>9}")
    for name in samples:
        print(f"{name:32} {p50[name]:9.1f} {p90[name]:9.1f}")
    click_ratio = p50["endpoint_click"] / p50["server_click"]
    shot_ratio = p50["endpoint_shot"] / p50["server_shot"]
    print(f"click: ours / Cua's = {click_ratio:.3f} (target <= 0.2); screenshot: {shot_ratio:.3f} (target <= 0.5)")
    print(
        f"cua_endpoint_click_p50_ms={p50['endpoint_click']:.1f} cua_server_click_p50_ms={p50['server_click']:.1f} "
        f"cua_endpoint_screenshot_p50_ms={p50['endpoint_shot']:.1f} "
        f"cua_server_screenshot_p50_ms={p50['server_shot']:.1f} "
        f"click_ratio={click_ratio:.3f} screenshot_ratio={shot_ratio:.3f}"
    )


if __name__ == "__main__":
    main()
