"""What a pool host runs for :class:`cua_bench_rl.placement.PoolBackend`: one env server on tcp with CURVE.

The pool ships this file alone as a job's code and calls :func:`serve` (a backend whose server runs on the
host, such as ``sim`` or ``local``) or :func:`serve_machine` (one whose server runs inside a machine of its
own, a VM) in a space, so it imports nothing of cua-bench-rl: a host needs cua-bench (and the inner
backend) only. The space's HOME is its own, so the server's CURVE key pair is made fresh for this job
(a machine's, by its backend); its public half reaches the client through the job's log, which only the
pool's authenticated clients can read.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

JOB_FILE = "cua_env_server_job.py"
JOB_FN = "serve"
MACHINE_JOB_FN = "serve_machine"


def pool_host(host: str | None) -> str:
    """The address the pool knows this host by (a gang of one: MASTER_ADDR is our own)."""
    return host or os.environ.get("MASTER_ADDR") or "127.0.0.1"


def bind_address(host: str | None) -> str:
    """tcp on the address the pool knows this host by, any free port."""
    host = pool_host(host)
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


def serve_machine(
    backend: str, width: int, height: int, allow: str, options: dict[str, Any] | None = None, host: str | None = None
) -> int:
    """A machine of ``backend`` (a VM: its env server runs inside it) on this host, its server reached at the
    address the pool knows this host by and answering ``allow`` only (the backend's ``listen`` and ``allow``
    options); the same ready line as :func:`serve`. It is torn down when the job is cancelled, and the job ends
    when the machine stops (its server closed by the client powers it off)."""
    from cua_bench.registry import backends

    impl = backends()[backend](**{**(options or {}), "listen": pool_host(host), "allow": allow})
    impl.run_id = f"pool-{os.getpid()}"
    stop = threading.Event()

    def cancelled(_signum: int, _frame: Any) -> None:
        if not provisioned:  # mid-boot: unwind, so the half-made machine is undone
            raise SystemExit(128 + signal.SIGTERM)
        stop.set()

    provisioned = False
    signal.signal(signal.SIGTERM, cancelled)
    computer = impl.provision(width=width, height=height, timeout=impl.option("boot_timeout"))
    provisioned = True
    try:
        print(f"ready {computer.address} server_key={computer.info['server_key']}", flush=True)
        while not stop.wait(1.0):
            stopped = impl.failure(computer)
            if stopped is not None:  # closed by its client (the server exited with 0), or not
                print(f"the machine stopped: {stopped}", flush=True)
                return 0 if "exited with status 0;" in stopped else 1
        return 0
    finally:
        impl.teardown(computer)
