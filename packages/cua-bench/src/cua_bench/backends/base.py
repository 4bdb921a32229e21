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
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from cua_bench.backend_kit.capabilities import Capabilities
from cua_bench.backend_kit.desktop import TASK_SETTINGS
from cua_bench.backend_kit.errors import BackendError
from cua_bench.backend_kit.options import Option, check_options, options_env, resolve_options
from cua_bench.backend_kit.ready import read_ready_line, ready_address
from cua_bench.connect import security_for
from cua_bench.session import Session
from cua_core import RpcClient, RpcError, SecurityError, ipc_address

__all__ = ["TASK_SETTINGS", "Backend", "BackendError", "Computer", "ProcessBackend"]


@dataclass
class Computer:
    """A provisioned computer: where its env server listens, and what the backend needs to stop it.

    Attributes:
        backend: the name of the backend that provisioned it.
        address: its env server's RPC address (``ipc://...`` or ``tcp://...``), what ``EnvClient`` connects to.
        width: the screen's width in pixels.
        height: the screen's height in pixels.
        handle: the backend's own object for it (a process, a container), for ``teardown``; opaque to others.
        info: what the backend and clients need beyond the address (a pid, a container name, the
            ``server_key`` of a server reached over ``tcp://``).
    """

    backend: str
    address: str
    width: int
    height: int
    handle: Any = None
    info: dict[str, Any] = field(default_factory=dict)


class Backend(ABC):
    """What starts and stops the computers episodes run on; a plugin subclasses it and registers it by ``name``.

    It is small on purpose: an episode goes through the env server, the same on every backend, so a
    backend only provisions a computer, says where its server listens and tears it down. The
    conformance suite (``cua_bench.conformance.check_backend``) checks an implementation.

    Args:
        **options: values for the options the backend declares in ``options`` (``--backend-option
            KEY=VALUE`` on the command line), each converted to its type. An option not given falls
            back to its environment variable, then its default (``option``).

    Raises:
        OptionError: a key the backend does not declare, or a value not of its option's type
            (``cua_core.options.OptionError``).
    """

    name: ClassVar[str]
    # What tasks may rely on (``cua_bench.backend_kit.Capabilities``). Typed as a mapping while backends that
    # declare a plain dict remain (cua_bench_rl's PoolBackend); read it with ``backend_kit.capabilities_of``.
    capabilities: ClassVar[Mapping[str, Any]] = Capabilities()
    # What ``--backend-option`` and the constructor take, each the typed front of an environment variable.
    options: ClassVar[tuple[Option, ...]] = ()
    # The options this backend was made with, checked and typed (a class default: not every backend calls
    # ``Backend.__init__``).
    given_options: Mapping[str, Any] = MappingProxyType({})
    # The run this backend's computers serve (the runner sets it), for labelling what outlives a crash.
    run_id: str | None = None
    # That run's output folder (the runner sets it): where a backend keeps what explains a computer that
    # failed (a VM's serial console), beside the episodes it failed.
    run_dir: Path | None = None

    def __init__(self, **options: Any) -> None:
        self.given_options = check_options(type(self), options)

    def option(self, name: str) -> Any:
        """Option ``name``: as given to the constructor, else as its environment variable says, else its default.

        Args:
            name: one of the options the class declares in ``options``.

        Returns:
            The value, typed as the option declares.

        Raises:
            KeyError: the class declares no option ``name``.
            OptionError: the option was not given and its environment variable holds a value not of its type.
        """
        return resolve_options(type(self), self.given_options, (name,))[name]

    @abstractmethod
    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        """Start a computer and its env server; return once the server answers.

        Args:
            width: the screen's width in pixels.
            height: the screen's height in pixels.
            timeout: seconds to wait for the env server to answer before giving up.

        Returns:
            The computer, whose ``address`` answers RPC calls now.

        Raises:
            BackendError: the computer did not start, or its server did not answer within ``timeout``;
                the message says the fix. The runner retries the episode once on a fresh computer.
        """

    @abstractmethod
    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        """Stop the computer; nothing of it may remain afterwards (processes, files, displays).

        Args:
            computer: one this backend's ``provision`` returned.
            timeout: seconds the env server may take to close on its own before it is killed.

        Raises:
            BackendError: what could not be removed; the runner logs it (any ``CuaError``) and goes on.
        """

    def health(self, computer: Computer, *, timeout: float = 2.0) -> bool:
        """Whether the computer's env server answers now: a cheap probe for pools, readiness waits and
        the conformance suite, which never raises for a server that is down.

        Args:
            computer: one this backend provisioned.
            timeout: seconds to wait for the answer.

        Returns:
            True when the server answered ``rpc.ping`` (over CURVE when ``info`` names the server's key);
            False when the call failed or timed out, or the key could not be used.
        """
        try:
            security = security_for(computer)
            with RpcClient(
                computer.address, timeout=timeout, heartbeat_timeout=timeout, retries=0, security=security
            ) as client:
                return bool(client.call("rpc.ping") == "pong")
        except (RpcError, SecurityError):
            return False

    def restore(self, computer: Computer) -> None:  # noqa: B027 - optional hook: most backends need none
        """Bring the computer back to the state it was provisioned in, before an episode on a computer that
        served one already.

        The env server's own reset (apps killed, home restored) runs after it on every backend; a VM backend
        reverts its ready snapshot here, so nothing an episode did outside the server's reach (the kernel,
        system files, services) survives. The default does nothing: the server's reset is all a process or
        container needs.

        Args:
            computer: one this backend provisioned, which has served at least one episode.

        Raises:
            BackendError: it cannot; the runner (and cua-bench-rl's env workers) then replaces the computer.
        """

    def failure(self, computer: Computer) -> str | None:
        """Why ``computer`` stopped, where the backend can tell (killed for memory, say); None otherwise.

        Args:
            computer: one whose env server failed during an episode.

        Returns:
            A short reason the runner adds to the episode's error, or None (the default) when the backend
            cannot tell or the computer is still running.
        """
        return None

    def prune(self, *, everything: bool = False) -> list[str]:
        """Remove what stopped processes of this backend left behind (containers, VMs); their names.

        With ``everything``, also what running processes own.

        Args:
            everything: also remove what running processes of this backend own (``cua-bench prune --all``).

        Returns:
            The names of what was removed; empty (the default) for backends that leave nothing behind.

        Raises:
            BackendError: something could not be removed; ``cua-bench prune`` reports any ``CuaError`` per
                backend.
        """
        return []

    def build_image(
        self, *, rebuild_base: bool = False, variant: str | None = None, log: Callable[[str], None] = print
    ) -> Any:
        """Build what the backend's computers boot from (an image; ``variant`` names one of several, None the
        default); returns a description of the build.

        Args:
            rebuild_base: also rebuild the base the image starts from (docker: the debootstrap root).
            variant: which of the backend's images to build; None builds the default one.
            log: called with each line of progress.

        Returns:
            A description of the build, printed by ``cua-bench image build``.

        Raises:
            BackendError: the build failed; the default raises it for backends with no image to build.
        """
        raise BackendError(f"backend {self.name!r} has no image to build")

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        """The Session the env server serves (called in the server's process).

        Args:
            width: the screen's width in pixels (the server's ``--width``).
            height: the screen's height in pixels (the server's ``--height``).

        Returns:
            The session the server serves for its whole life; ``reset`` readies it for each episode.

        Raises:
            BackendError: the default, for backends whose env server runs elsewhere (a container runs the
                ``local`` backend's server, say).
        """
        raise BackendError(f"backend {cls.name!r} does not run its env server on this host")


class ProcessBackend(Backend):
    """A computer that is a process on this host: the env server itself (``python -m cua_bench.server``).

    A subclass sets ``name`` and ``create_session``; it may wrap the server's command (``server_command``)
    or choose its address (``server_address``).
    """

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        """Start the env server as a child process in a session of its own, which exits with this one.

        Args:
            width: the screen's width in pixels.
            height: the screen's height in pixels.
            timeout: seconds to wait for the server's ``ready`` line.

        Returns:
            The computer; ``handle`` is the server's process and ``info["pid"]`` its pid.

        Raises:
            BackendError: the server exited or said nothing within ``timeout``; it is killed first.
        """
        address = self.server_address()
        argv = [sys.executable, "-m", "cua_bench.server", "--backend", self.name, "--address", address]
        argv += ["--width", str(width), "--height", str(height)]
        argv += ["--exit-with-parent"]  # a runner killed with -9 must not leave its computers running
        proc = self.start_server(argv, address, timeout)
        line = read_ready_line(proc, timeout)
        ready = ready_address(line)
        if ready is None:
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
        return Computer(self.name, ready, width, height, proc, {"pid": proc.pid})

    def start_server(self, argv: list[str], address: str, timeout: float) -> subprocess.Popen[str]:
        """Start the server ``argv`` (``server_command`` may wrap it), printing its ``ready`` line on the
        process's stdout, in a session of its own.

        Args:
            argv: the server's own command line.
            address: where it will listen.
            timeout: seconds the start may take (``provision``'s).

        Returns:
            Its process, whose stdout is a pipe.
        """
        return subprocess.Popen(
            self.server_command(argv, address),
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,  # Ctrl-C in a terminal reaches the runner, which stops envs in order
            env=self.server_env(),
        )

    def server_env(self) -> dict[str, str] | None:
        """The server's environment: this process's, with the options given to the constructor as their
        variables (the server reads its settings there); None, inherit it, when none were given.

        Returns:
            The whole environment for the server, or None to inherit this process's.
        """
        given = options_env(type(self), self.given_options)
        return {**os.environ, **given} if given else None

    def server_address(self) -> str:
        """Where the next server listens.

        Returns:
            A fresh ``ipc://`` address; the server names it in its ``ready`` line.
        """
        return ipc_address(f"env-{uuid.uuid4().hex[:12]}")

    def server_command(self, argv: list[str], address: str) -> list[str]:
        """The command line that starts the server ``argv`` (local wraps it in namespaces of its own).

        Args:
            argv: the server's own command line.
            address: where it will listen.

        Returns:
            The command line to run; ``argv`` unchanged by default.
        """
        return argv

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        """Ask the server to close, kill its process group if it does not, and remove its socket.

        Args:
            computer: one this backend's ``provision`` returned.
            timeout: seconds the server may take to exit after ``close`` before it is killed.
        """
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


def _kill(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
