"""The ``local`` backend: a real X11 desktop on this Linux host, one Xvfb display per environment.

Each environment is an env server process (``python -m cua_bench.server --backend local``) that
owns an Xvfb display, openbox, a home and a temp dir, and drives them with XTest and shared-memory
capture (``LocalSession``). Needs Xvfb and openbox (``apt-get install xvfb openbox``) and the
``local`` extra (python-xlib, mss). Settling after actions is tuned with ``CUA_LOCAL_SETTLE_QUIET``,
``CUA_LOCAL_SETTLE_GRACE`` and ``CUA_LOCAL_SETTLE_MAX`` (seconds; MAX=0 turns it off).

Where the host allows it (root on Linux) each environment runs as a user of its own in namespaces of
its own, with its home at ``/home/user`` (``isolate``; ``CUA_LOCAL_ISOLATE``: ``auto``, the default,
``1`` or ``0``). Elsewhere it shares this host, with a ``/tmp`` of its own where the host allows a
mount namespace, and OSWorld tasks whose commands would take root or touch paths outside the home are
skipped (``Session.shares_host``).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, Literal

from cua_bench.backend_kit.capabilities import Capabilities
from cua_bench.backend_kit.desktop import APP_ALIASES
from cua_bench.backend_kit.options import Option
from cua_bench.backends.base import Backend, BackendError, Computer, ProcessBackend
from cua_bench.backends.local.apps import remove_env_root
from cua_bench.backends.local.display import missing_programs, remove_stale_display
from cua_bench.backends.local.isolate import (
    ISOLATE,
    env_uid,
    isolating,
    isolation_unavailable,
    private_tmp_unavailable,
    wrap,
    wrap_private_tmp,
)
from cua_bench.backends.local.procs import env_base, env_root, env_roots, kill_marked, kill_uid
from cua_bench.backends.local.settle import SettleConfig
from cua_bench.hookspecs import hookimpl
from cua_bench.session import Session
from cua_core import Register, runtime_dir

__all__ = ["LocalBackend"]

log = logging.getLogger(__name__)
_SETTLE = SettleConfig()  # the settling the options' defaults describe
FORKSERVER = "CUA_LOCAL_FORKSERVER"


class LocalBackend(ProcessBackend):
    name = "local"
    # No root: an isolated environment is a user of its own, a shared one the host's user. Any resolution,
    # a clipboard, and the accessibility tree of GTK, Qt and Chromium widgets (AT-SPI).
    capabilities = Capabilities(os="linux", shell=True, browser=True, apps=frozenset(APP_ALIASES))
    options = (
        Option("isolate", Literal["auto", "1", "0"], "auto", "a user and namespaces of its own per environment: "
               "auto (where the host allows it: root on Linux), 1 (always) or 0 (share this host)", ISOLATE),
        Option("settle_quiet", float, _SETTLE.quiet, "seconds without screen change that end settling after an action",
               "CUA_LOCAL_SETTLE_QUIET"),
        Option("settle_grace", float, _SETTLE.grace, "seconds to wait for a first change after an action",
               "CUA_LOCAL_SETTLE_GRACE"),
        Option("settle_max", float, _SETTLE.limit, "the longest settling after an action, in seconds (0: off)",
               "CUA_LOCAL_SETTLE_MAX"),
        Option("forkserver", bool, True, "fork isolated env servers from one process that imported them once "
               "(their modules' memory shared); 0 starts each as an interpreter of its own", FORKSERVER),
    )  # fmt: skip

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        try:
            self.isolate = isolating(self.given_options.get("isolate"))
        except ValueError as exc:
            raise BackendError(str(exc)) from None
        self._sockets = Path()  # the isolated server's socket folder, while it starts

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        problem = unavailable() or (isolation_unavailable() if self.isolate else None)
        if problem:
            raise BackendError(f"{problem} ({ISOLATE}=1)" if self.isolate and not unavailable() else problem)
        try:
            computer = super().provision(width=width, height=height, timeout=timeout)
        except BaseException:
            if self.isolate:
                shutil.rmtree(self._sockets, ignore_errors=True)
            raise
        if self.isolate:  # its folders live in its own namespace; its processes are those of its uid
            computer.info["uid"] = env_uid(computer.info["pid"])
            computer.info["sockets"] = os.path.dirname(computer.address.removeprefix("ipc://"))
        else:
            computer.info["root"] = str(env_root(computer.info["pid"]))
        return computer

    def server_address(self) -> str:
        if not self.isolate:
            return super().server_address()
        sockets = runtime_dir() / "local" / f"env-{uuid.uuid4().hex[:12]}"  # handed to the env's uid
        sockets.mkdir(parents=True, mode=0o700)
        self._sockets = sockets
        return f"ipc://{sockets}/env.sock"

    def start_server(self, argv: list[str], address: str, timeout: float) -> subprocess.Popen[str]:
        if not (self.isolate and self.option("forkserver")):
            return super().start_server(argv, address, timeout)
        from cua_bench.backends.local.forkserver import spawn

        try:
            return spawn(
                Path(address.removeprefix("ipc://")).parent, argv[3:], self.server_env() or os.environ, timeout
            )
        except OSError as exc:
            raise BackendError(f"local: {exc} ({FORKSERVER}=0 starts each env server as a process of its own)") from exc

    def server_command(self, argv: list[str], address: str) -> list[str]:
        if self.isolate:
            return wrap(argv, Path(address.removeprefix("ipc://")).parent)
        problem = private_tmp_unavailable()
        if problem:
            _warn_shared_tmp(problem)
            return argv
        # The env roots' folder must exist before the server covers /tmp, to be bound back: the backend
        # cleans up after a killed server there, and the server's own /tmp is gone with it.
        env_base().mkdir(mode=0o700, parents=True, exist_ok=True)
        return wrap_private_tmp(argv)

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        """Stop the server (it cleans up after itself), then remove whatever a killed server left.

        SIGTERM rather than the ``close`` RPC: the server exits at once either way, and a signal
        cannot lose its reply to the race between the reply and the server's shutdown.
        """
        proc: subprocess.Popen[str] = computer.handle
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        socket = computer.address.removeprefix("ipc://")
        if computer.address.startswith("ipc://"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(socket)
        if "uid" in computer.info:
            kill_uid(computer.info["uid"])
            shutil.rmtree(computer.info["sockets"], ignore_errors=True)
        for root in env_roots(computer.info["pid"]):
            kill_marked(root)
            kill_marked(root / "desktop")  # the simulated provider's Chromium (``themed``) is marked apart
            try:
                number, xvfb_pid = (int(v) for v in (root / "display").read_text().split())
            except (OSError, ValueError):
                pass
            else:
                remove_stale_display(number, xvfb_pid)
            remove_env_root(root)

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        from cua_bench.backends.local.session import LocalSession, timeout_scale

        return LocalSession.start(width, height, timeout=10.0 * timeout_scale())


@functools.cache
def _warn_shared_tmp(problem: str) -> None:
    """Once a process: the environment's file calls and its shell will not agree on /tmp."""
    log.warning(
        "local environments share this host's /tmp with their shell commands, while the session's file calls "
        "use a /tmp folder of each environment's own: tasks that pass files through /tmp between the two fail "
        "(%s)",
        problem,
    )


def unavailable() -> str | None:
    """Why this host cannot run the local backend, or None."""
    if not sys.platform.startswith("linux"):
        return f"the local backend runs on Linux only (this is {sys.platform}); use sim, docker or a VM backend"
    missing = missing_programs()
    if missing:
        return f"the local backend needs {', '.join(missing)}: apt-get install xvfb openbox"
    try:
        import mss  # noqa: F401
        import Xlib  # noqa: F401
    except ImportError as exc:
        hint = "pip install './packages/cua-bench[local]' from a clone of cua"
        return f"the local backend needs python-xlib and mss ({exc}): {hint}"
    return None


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("local", LocalBackend)
