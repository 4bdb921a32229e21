"""What a pool host runs for :class:`cua_bench_rl.placement.PoolBackend`: one env server on tcp with CURVE.

The pool ships this file alone as a job's code and calls :func:`serve` in a space, so it imports
nothing of cua-bench-rl: a host needs cua-bench (and the inner backend) only. The space's HOME is
its own, so the server's CURVE key pair is made fresh for this job; its public half reaches the
client through the job's log, which only the pool's authenticated clients can read.
"""

from __future__ import annotations

import os
import sys

JOB_FILE = "cua_env_server_job.py"
JOB_FN = "serve"


def bind_address(host: str | None) -> str:
    """tcp on the address the pool knows this host by (a gang of one: MASTER_ADDR is our own), any free port."""
    host = host or os.environ.get("MASTER_ADDR") or "127.0.0.1"
    return f"tcp://[{host}]:*" if ":" in host else f"tcp://{host}:*"


def serve(backend: str, width: int, height: int, allow: str, host: str | None = None) -> int:
    """Serve until the client closes the server or the job is cancelled; ``allow``: the client's public key."""
    try:
        from cua_bench.server import main
    except ImportError as exc:
        raise SystemExit(
            f"cua-bench is not importable by this host's python ({sys.executable}): {exc}; "
            "install it where the host agent runs"
        ) from exc
    # --allow=KEY in one word: a Z85 key may start with '-', which argparse would take for an option.
    argv = ["--backend", backend, "--address", bind_address(host), "--curve", f"--allow={allow}"]
    return main([*argv, "--width", str(width), "--height", str(height)])
