"""``cua-bench-cua serve``: ``--task`` resets the environment before Cua's clients connect, and an
env server that is not there is one clear error."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from cua_bench.client import EnvClient


def test_task_resets_the_environment_first(endpoint: Any, port: int) -> None:
    with endpoint("--backend", "sim", "--task", "sim/enter-text", port=port) as (url, address):
        assert url == f"http://127.0.0.1:{port}"
        with EnvClient(address) as env:
            task = env.info()["task"]
        assert task is not None and task["description"].startswith(("Type", "Replace"))


def test_an_env_server_that_is_not_there() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cua_bench_cua", "serve", "--env", "ipc:///nonexistent/env.sock", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("Error: 'info' on ipc:///nonexistent/env.sock: no reply")
