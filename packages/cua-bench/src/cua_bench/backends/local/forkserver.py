"""Isolated env servers forked from one process that imported them once (a fork server).

An isolated ``local`` environment's server started as an interpreter of its own imports cua-bench,
ZeroMQ, numpy and Pillow all over again: ~28 of its ~32 MiB idle were those modules (``bench/scale.py``).
Forked from a process that imported them once, every server shares those pages with the others
(copy-on-write; ``gc.freeze`` keeps the collector from writing to them), as multiprocessing's forkserver
and Android's zygote do.

The fork server is started once per backend process, as root, single-threaded (a namespace must be entered
before ZeroMQ starts its threads, and ``fork`` copies only the calling thread). The backend asks it for a
server over a unix SEQPACKET socket: a JSON request (the socket folder, the server's options, its
environment) with two descriptors (the server's stdout, where it prints its ``ready`` line, and stderr).
The child enters its namespaces (``unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC)``, mounts private, as
``unshare --mount --net --ipc --propagation private`` does), then runs ``isolate.main`` exactly as the launcher did.
The reply names the child's pid and carries a pipe on which the fork server writes the child's wait
status when it reaps it: ``Forked`` turns that into a ``subprocess.Popen`` the backend waits on as before.

The fork server exits when the process that started it does (a pidfd), and each server exits when the
fork server does (``--exit-with-parent``): a driver killed with -9 still takes its desktops with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["Forked", "spawn"]

_CLONE_NEWNS = 0x00020000
_CLONE_NEWNET = 0x40000000
_CLONE_NEWIPC = 0x08000000
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_STATUS = struct.Struct("i")


class Forked(subprocess.Popen[str]):
    """A server the fork server started, as the ``subprocess.Popen`` the backend keeps for its computer.

    Not our child, so not ``waitpid``-able: its exit status comes on ``status`` (a pipe the fork server
    writes when it reaps it), and signals go through a pidfd, which cannot hit a reused pid. Popen's
    ``__init__`` is not run (it would start a process); what its other methods read is set here."""

    def __init__(self, args: list[str], pid: int, stdout: Any, status: int) -> None:
        self.args, self.pid, self.stdout, self.stdin, self.stderr = args, pid, stdout, None, None
        self.returncode: Any = None
        self._child_created = False  # Popen.__del__ reaps only what it started
        self._status = status
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # dead and reaped already: its status is on the pipe
            self._pidfd = None

    def poll(self) -> int | None:
        return self._settle(0.0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._settle(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return code

    def _settle(self, timeout: float | None) -> int | None:
        if self.returncode is not None:
            return int(self.returncode)
        if not select.select([self._status], [], [], timeout)[0]:
            return None
        data = os.read(self._status, _STATUS.size)
        if len(data) == _STATUS.size:
            self.returncode = os.waitstatus_to_exitcode(_STATUS.unpack(data)[0])
        else:  # the fork server died and took the status with it: the server follows it (--exit-with-parent)
            if self._pidfd is not None and not select.select([self._pidfd], [], [], timeout)[0]:
                return None
            self.returncode = -signal.SIGKILL  # its status is lost; it is gone
        self._close()
        return int(self.returncode)

    def _close(self) -> None:
        for fd in (self._status, self._pidfd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def send_signal(self, sig: int) -> None:
        if self.returncode is None and self._pidfd is not None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __del__(self) -> None:
        if self.returncode is None:  # never waited for: its descriptors still go
            self._close()


def spawn(sockets: Path, options: list[str], env: Mapping[str, str], timeout: float) -> Forked:
    """An isolated env server with ``options`` (``--backend local --address ...``), its socket in ``sockets``,
    forked from this process's fork server (started on first use, and again if it died).

    Raises:
        OSError: the fork server could not be started or did not answer.
    """
    request = json.dumps({"sockets": str(sockets), "options": options, "env": dict(env)}).encode()
    out, into = os.pipe()
    try:
        reply, status = _FORK_SERVER.ask(request, [into, 2], timeout)  # its stderr is ours, as a child's would be
    except BaseException:
        os.close(out)
        raise
    finally:
        os.close(into)
    pid = int(json.loads(reply)["pid"])
    return Forked([sys.executable, "-m", "cua_bench.server", *options], pid, os.fdopen(out, "r"), status)


class _ForkServer:
    """This process's fork server: one request (and its reply) at a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.sock: socket.socket | None = None

    def ask(self, request: bytes, fds: list[int], timeout: float) -> tuple[bytes, int]:
        with self.lock:
            for attempt in (1, 2):
                if self.proc is None or self.sock is None or self.proc.poll() is not None:
                    self.proc, self.sock = _start(timeout)
                self.sock.settimeout(timeout)
                try:
                    socket.send_fds(self.sock, [request], fds)
                    reply, got, _, _ = socket.recv_fds(self.sock, 4096, 1)
                except OSError:  # it died since the last request, or hangs: start another
                    self.proc.kill()
                    self.proc.wait()
                    self.sock.close()
                    self.proc = self.sock = None
                    if attempt == 2:
                        raise
                    continue
                if not reply or not got:
                    raise OSError(f"the local fork server closed its socket ({_exit(self.proc)})")
                return reply, got[0]
        raise AssertionError("unreachable")


_FORK_SERVER = _ForkServer()


def _start(timeout: float) -> tuple[subprocess.Popen[bytes], socket.socket]:
    """The fork server, once it has imported what servers use and said so."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    code = "import sys; from cua_bench.backends.local.forkserver import main; main(int(sys.argv[1]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(theirs.fileno())],
        pass_fds=[theirs.fileno()],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,  # not the runner's: a reader waiting for its end must not wait for us
        start_new_session=True,  # Ctrl-C reaches the runner, which stops its environments in order
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},  # numpy's BLAS starts no threads to fork past
    )
    theirs.close()
    mine.settimeout(timeout)
    try:
        said = mine.recv(64)
    except OSError:
        said = b""
    if said != b"ready":
        proc.kill()
        proc.wait()
        mine.close()
        raise OSError(f"the local fork server did not start ({_exit(proc)}; its error is on stderr, above)")
    mine.settimeout(None)
    return proc, mine


def _exit(proc: subprocess.Popen[bytes]) -> str:
    code = proc.poll()
    return "still running" if code is None else f"exited with code {code}"


# -- the fork server's side ---------------------------------------------------------------------------


def main(fd: int) -> None:
    """Import what a server uses, then fork one for each request until the backend's process exits."""
    control = socket.socket(fileno=fd)
    parent = os.pidfd_open(os.getppid())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner stops us; a terminal's Ctrl-C does not
    _preload()
    threads = len(os.listdir("/proc/self/task"))
    if threads != 1:
        raise SystemExit(f"the local fork server has {threads} threads after its imports; it must have one to fork")
    gc.freeze()  # the imported objects stay where they are: children share their pages
    wake, woken = os.pipe()
    os.set_blocking(woken, False)
    signal.set_wakeup_fd(woken)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler (not SIG_IGN): we reap, and report the status
    children: dict[int, int] = {}  # pid -> the write end of its status pipe
    control.send(b"ready")
    while True:
        ready = select.select([control.fileno(), wake, parent], [], [])[0]
        if wake in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(wake, 512)
            _reap(children)
        if parent in ready:
            break  # the backend's process is gone; each server follows us (--exit-with-parent)
        if control.fileno() in ready:
            message, fds, _, _ = socket.recv_fds(control, 1 << 20, 2)
            if not message:
                break  # the backend closed its end
            _fork(json.loads(message), fds, control, children)


def _preload() -> None:
    """What every server imports at start and on its first reset, imported here once for all."""
    import numpy  # noqa: F401
    import PIL.Image  # noqa: F401

    import cua_bench.backend_kit.desktop
    import cua_bench.backends.local.session
    import cua_bench.server  # noqa: F401
    from cua_bench.registry import backends

    backends()  # the plugins' registrations, read once


def _reap(children: dict[int, int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        into = children.pop(pid, None)
        if into is not None:
            with contextlib.suppress(OSError):
                os.write(into, _STATUS.pack(status))
            os.close(into)


def _fork(request: dict[str, Any], fds: list[int], control: socket.socket, children: dict[int, int]) -> None:
    status, into = os.pipe()
    pid = os.fork()
    if pid == 0:
        _child(request, fds)
    for fd in fds:
        os.close(fd)
    children[pid] = into
    socket.send_fds(control, [json.dumps({"pid": pid}).encode()], [status])
    os.close(status)


def _child(request: dict[str, Any], fds: list[int]) -> None:
    """The server: its own session, stdio and environment, its namespaces, then the launcher's work. Never returns."""
    code: Any = 1
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setsid()
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.closerange(3, _max_fd())  # the fork server's socket, pipes and other servers' status pipes
        os.environ.clear()
        os.environ.update(request["env"])
        _unshare()
        from cua_bench.backends.local.isolate import main as launch

        launch([request["sockets"], "--", *request["options"]])
    except SystemExit as exc:
        code = exc.code
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code if isinstance(code, int) else (0 if code is None else 1))


def _unshare() -> None:
    """Mount, network and IPC namespaces of its own, its mounts private (``unshare --mount --net --ipc
    --propagation private``: see ``isolate``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"unshare: {os.strerror(error)}")
    if libc.mount(None, b"/", None, ctypes.c_ulong(_MS_REC | _MS_PRIVATE), None) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"mount --make-rprivate /: {os.strerror(error)}")


def _max_fd() -> int:
    return int(os.sysconf("SC_OPEN_MAX")) if hasattr(os, "sysconf") else 1024
