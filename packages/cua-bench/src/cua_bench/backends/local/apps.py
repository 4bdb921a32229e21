"""The programs an environment runs: its apps and its shell commands, and killing all of them at reset.

Apps get a clean environment (nothing of the runner's leaks in): the env's DISPLAY, HOME, TMPDIR
and XDG folders, the env's own session bus (never the user's: it would let apps outlive the env
and see each other), accessibility on, and the environment's marker, so the ones that detach
(double fork, ``setsid``) are still found and killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from cua_bench.backend_kit.desktop import APP_ALIASES
from cua_bench.backends.local.procs import MARKER, kill_marked, pdeathsig, spawn, wait_gone
from cua_bench.commands import CommandResult
from cua_bench.session import NotSupported

__all__ = ["APP_ALIASES", "WHOLE_MACHINE", "Apps", "child_env", "remove_env_root", "tmp_link", "whole_machine"]

# Set where the environment owns the machine it runs on (the docker backend's osworld image): its home
# is the real $HOME (/home/user), its tmp the real /tmp, and settings persist (dconf), as on OSWorld's VM.
WHOLE_MACHINE = "CUA_LOCAL_WHOLE_MACHINE"


def whole_machine() -> bool:
    return os.environ.get(WHOLE_MACHINE) == "1"


# Chromium puts its singleton socket at $TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket and dies
# (SIGTRAP, "Socket path too long") when that passes a unix socket's ~107 bytes: a deep env root (a long
# CUA_LOCAL_ROOT) gives apps a short link to their tmp instead.
_SOCKET_ROOM = 107 - len("/org.chromium.Chromium.XXXXXX/SingletonSocket")


def tmp_link(root: Path) -> Path:
    """The short link under the system's temp folder that stands for ``root``'s tmp when its path is long."""
    return Path(tempfile.gettempdir()) / f"cua-t{hashlib.sha1(str(root).encode()).hexdigest()[:12]}"


def _apps_tmp(root: Path, tmp: Path) -> str:
    if len(str(tmp)) <= _SOCKET_ROOM:
        return str(tmp)
    link = tmp_link(root)
    if not (link.is_symlink() and os.readlink(link) == str(tmp)):
        with contextlib.suppress(FileNotFoundError):
            link.unlink()
        link.symlink_to(tmp)
    return str(link)


def remove_env_root(root: Path) -> None:
    """Remove an environment's folder and its tmp link, if it has one (the session at close; the backend
    after a killed server)."""
    link = tmp_link(root)
    if link.is_symlink() and os.readlink(link).startswith(str(root)):
        with contextlib.suppress(FileNotFoundError):
            link.unlink()
    shutil.rmtree(root, ignore_errors=True)


def child_env(root: Path, home: Path, tmp: Path, run: Path, display: str, bus: str = "disabled:") -> dict[str, str]:
    """What every process of the environment sees: its own folders, display and bus, nothing inherited.

    Settings live in memory (they would otherwise land in the host user's dconf database), except on a
    machine the environment owns (``whole_machine``), where dconf keeps them in home as on OSWorld's VM.
    """
    settings = {} if whole_machine() else {"GSETTINGS_BACKEND": "memory"}
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "USER": os.environ.get("USER", "user"),
        "LOGNAME": os.environ.get("LOGNAME", os.environ.get("USER", "user")),
        "SHELL": "/bin/bash",
        "TERM": "xterm",
        "HOME": str(home),
        "TMPDIR": _apps_tmp(root, tmp),
        "XDG_RUNTIME_DIR": str(run),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "DISPLAY": display,
        "DBUS_SESSION_BUS_ADDRESS": bus,
        # GTK exports its widgets whenever a bus is there; Qt waits to be asked. (Chromium needs
        # --force-renderer-accessibility on its command line: it ignores the environment.)
        "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
        **settings,
        MARKER: str(root),
    }


class Apps:
    """Starts and stops the environment's programs; ``keep`` are pids reset never kills (Xvfb, openbox)."""

    def __init__(self, root: Path, home: Path, env: dict[str, str], keep: Iterable[int]) -> None:
        self.root, self.home, self.env = root, home, env
        self.keep = set(keep)
        self.procs: list[subprocess.Popen[bytes]] = []
        self._log = open(root / "apps.log", "ab")  # noqa: SIM115 - closed by close()
        self._counter = itertools.count()

    def argv(self, app: str, args: Iterable[str] = ()) -> list[str]:
        argv = shlex.split(APP_ALIASES.get(app, app)) + list(args)
        if not argv or shutil.which(argv[0], path=self.env["PATH"]) is None:
            known = ", ".join(f"{k} ({v})" for k, v in APP_ALIASES.items())
            raise NotSupported(f"app {app!r} is not installed on this host; give a program on PATH or one of {known}")
        return argv

    def start(self, argv: list[str]) -> subprocess.Popen[bytes]:
        self.procs = [proc for proc in self.procs if proc.poll() is None]
        proc = spawn(argv, self.env, cwd=self.home, log=self._log)
        self.procs.append(proc)
        return proc

    async def run(self, command: str, timeout: float) -> CommandResult:
        """``bash -c command`` in home; output goes to files, so a command that leaves a background
        process holding its stdout still returns when the shell exits."""
        n = next(self._counter)
        out_path, err_path = self.root / f"cmd-{n}.out", self.root / f"cmd-{n}.err"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = await asyncio.create_subprocess_exec(
                "/bin/bash", "-c", command, cwd=self.home, env=self.env, stdin=subprocess.DEVNULL,
                stdout=out, stderr=err, preexec_fn=pdeathsig(), start_new_session=True,
            )  # fmt: skip
            timed_out = False
            try:
                returncode = await asyncio.wait_for(proc.wait(), timeout)
            except TimeoutError:
                timed_out = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                returncode = await proc.wait()
        stdout = out_path.read_bytes().decode("utf-8", "replace")
        stderr = err_path.read_bytes().decode("utf-8", "replace")
        out_path.unlink()
        err_path.unlink()
        if timed_out:
            stderr += f"\n[killed: the command ran past its {timeout:g} s timeout]"
            returncode = 124
        return CommandResult(returncode, stdout, stderr)

    def kill_all(self, timeout: float = 2.0) -> list[int]:
        """Kill every app and command of the environment (detached ones too); returns pids that survived."""
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        left = kill_marked(self.root, exclude=self.keep, timeout=timeout)
        for proc in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.5)
        self.procs = [proc for proc in self.procs if proc.poll() is None]
        return left + wait_gone([proc.pid for proc in self.procs], 0)

    def close(self) -> None:
        self.kill_all()
        self._log.close()
