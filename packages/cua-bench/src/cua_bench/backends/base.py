"""The backend contract: provision a computer, return its env server's address, tear it down.

A backend is small on purpose (Gymnasium's lesson): everything an episode does goes through the
env server, which is the same for every backend. ``create_session`` runs inside that server.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from cua_bench.session import Session
from cua_core.addresses import ipc_address
from cua_core.errors import CuaError, RpcError
from cua_core.rpc import RpcClient

__all__ = ["TASK_SETTINGS", "Backend", "BackendError", "Computer", "ProcessBackend"]

# What the task layer in an env server reads from its environment, and whether each names a host folder.
# A backend whose server runs elsewhere (a container, a VM) passes them on, and makes those folders
# readable there at the same path: set on the host, they must hold where the task runs.
TASK_SETTINGS = {
    "CUA_OSWORLD_FILES": True,  # the local mirror of OSWorld's remote files
    "CUA_OSWORLD_TASKS": True,  # OSWorld's task files, for tasks named osworld/<id>
    "CUA_OSWORLD_METRICS": False,
    "CUA_OSWORLD_PASSWORD": False,
}


class BackendError(CuaError):
    """A computer that could not be provisioned, reached or torn down; the message says the fix."""


@dataclass
class Computer:
    """A provisioned computer: where its env server listens, and what the backend needs to stop it."""

    backend: str
    address: str
    width: int
    height: int
    handle: Any = None
    info: dict[str, Any] = field(default_factory=dict)


class Backend(ABC):
    name: ClassVar[str]
    # What tasks may rely on: os, resolution, apps, whether a shell exists, ...
    capabilities: ClassVar[dict[str, Any]] = {}
    # The run this backend's computers serve (the runner sets it), for labelling what outlives a crash.
    run_id: str | None = None

    @abstractmethod
    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        """Start a computer and its env server; return once the server answers."""

    @abstractmethod
    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        """Stop the computer; nothing of it may remain afterwards (processes, files, displays)."""

    def health(self, computer: Computer, *, timeout: float = 2.0) -> bool:
        try:
            with RpcClient(computer.address, timeout=timeout, heartbeat_timeout=timeout, retries=0) as client:
                return bool(client.call("rpc.ping") == "pong")
        except RpcError:
            return False

    def failure(self, computer: Computer) -> str | None:
        """Why ``computer`` stopped, where the backend can tell (killed for memory, say); None otherwise."""
        return None

    def prune(self, *, everything: bool = False) -> list[str]:
        """Remove what stopped processes of this backend left behind (containers, VMs); their names.

        With ``everything``, also what running processes own.
        """
        return []

    def build_image(
        self, *, rebuild_base: bool = False, variant: str | None = None, log: Callable[[str], None] = print
    ) -> Any:
        """Build what the backend's computers boot from (an image; ``variant`` names one of several, None the
        default); returns a description of the build."""
        raise BackendError(f"backend {self.name!r} has no image to build")

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        """The Session the env server serves (called in the server's process)."""
        raise BackendError(f"backend {cls.name!r} does not run its env server on this host")


class ProcessBackend(Backend):
    """A computer that is a process on this host: the env server itself (``python -m cua_bench.server``)."""

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        address = self.server_address()
        proc = subprocess.Popen(
            self.server_command(
                [
                    sys.executable,
                    "-m",
                    "cua_bench.server",
                    "--backend",
                    self.name,
                    "--address",
                    address,
                    "--width",
                    str(width),
                    "--height",
                    str(height),
                    "--exit-with-parent",  # a runner killed with -9 must not leave its computers running
                ],
                address,
            ),
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,  # Ctrl-C in a terminal reaches the runner, which stops envs in order
        )
        line = _readline(proc, timeout)
        if not line.startswith("ready "):
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(2)  # it closed its output: dying, most likely, not slow
            code = proc.poll()
            proc.kill()
            proc.wait()
            what = (
                f"exited with code {code} before it was ready (its error is on stderr, above)"
                if code is not None
                else f"did not start within {timeout:g} s"
            )
            raise BackendError(
                f"the {self.name} env server {what} (said {line!r}); "
                f"run `python -m cua_bench.server --backend {self.name} --address {address}` to see why"
            )
        return Computer(self.name, line.split(" ", 1)[1], width, height, proc, {"pid": proc.pid})

    def server_address(self) -> str:
        """Where the next server listens."""
        return ipc_address(f"env-{uuid.uuid4().hex[:12]}")

    def server_command(self, argv: list[str], address: str) -> list[str]:
        """The command line that starts the server ``argv`` (local wraps it in namespaces of its own)."""
        return argv

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        proc: subprocess.Popen[str] = computer.handle
        if proc.poll() is None:
            try:
                with RpcClient(computer.address, timeout=2, heartbeat_timeout=2, retries=0) as client:
                    client.call("close")
                proc.wait(timeout)
            except (RpcError, subprocess.TimeoutExpired):
                _kill(proc)
        if proc.stdout is not None:
            proc.stdout.close()
        path = computer.address.removeprefix("ipc://")
        if computer.address.startswith("ipc://") and os.path.exists(path):
            os.unlink(path)


def _readline(proc: subprocess.Popen[str], timeout: float) -> str:
    """The server's first line, or '' if it said nothing within ``timeout`` (or died)."""
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(proc.stdout.readline() if proc.stdout else ""), daemon=True)
    reader.start()
    reader.join(timeout)
    return got[0].strip() if got else ""


def _kill(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
