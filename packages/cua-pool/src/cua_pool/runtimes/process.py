"""The built-in ``process`` runtime: a member is a process session on the host itself.

The member runs under ``/bin/sh``, which waits for it and records its exit status in the space,
so the status survives the agent (a restarted agent is no longer the member's parent and could
not wait for it). The shell leads a new session: stopping the member signals the whole group.
Limits are ``ulimit`` values in that shell, inherited by everything the member starts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from cua_pool import runner
from cua_pool.hookspecs import hookimpl
from cua_pool.spaces import Handle, Space

__all__ = ["ProcessRuntime"]

# The runner is started by its path, not as ``-m cua_pool.runner``: it needs only the standard
# library, and importing the package first would add its imports to every member's start. -P keeps
# the runner's own folder off sys.path, so a job's `import config` never finds one of ours.
_SCRIPT = '{limits}"$0" -P "$2"; code=$?; echo $code > "$1.tmp" && mv "$1.tmp" "$1"; exit $code'
_LIMITS = {"memory_mb": ("-v", 1024), "files": ("-n", 1), "cpu_seconds": ("-t", 1)}


def _stat(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []  # gone, or not Linux


def _start_time(pid: int) -> str:
    """The kernel's start time of ``pid`` (Linux), so a reused pid is not taken for our member."""
    stat = _stat(pid)
    return stat[19] if stat else ""


def _zombie(pid: int) -> bool:
    """Ended but not reaped (an adopted member's parent is init, which may be slow to reap)."""
    stat = _stat(pid)
    return bool(stat) and stat[0] in ("Z", "X")


def limit_lines(limits: dict[str, Any]) -> str:
    lines = []
    for key, value in sorted(limits.items()):
        if key not in _LIMITS:
            raise ValueError(f"unknown space limit {key!r}; known: {', '.join(sorted(_LIMITS))}")
        flag, scale = _LIMITS[key]
        lines.append(f"ulimit {flag} {int(value) * scale} || exit 125; ")
    return "".join(lines)


class ProcessRuntime:
    name = "process"

    def __init__(self) -> None:
        self._children: dict[int, subprocess.Popen[bytes]] = {}

    def start(self, space: Space, env: dict[str, str]) -> Handle:
        limits = space.read_meta().get("spec", {}).get("limits", {})
        script = _SCRIPT.format(limits=limit_lines(limits))
        with space.log.open("ab") as out:
            proc = subprocess.Popen(
                ["/bin/sh", "-c", script, sys.executable, str(space.exit_file), runner.__file__],
                cwd=space.work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
            )
        self._children[proc.pid] = proc
        return Handle("process", proc.pid, _start_time(proc.pid))

    def running(self, space: Space, handle: Handle) -> bool:
        child = self._children.get(handle.pid)
        if child is not None:
            if child.poll() is None:
                return True
            del self._children[handle.pid]
            return False
        try:
            os.kill(handle.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        if _zombie(handle.pid):
            return False
        return not handle.start_time or _start_time(handle.pid) in ("", handle.start_time)

    def exit_code(self, space: Space, handle: Handle) -> int | None:
        try:
            return int(space.exit_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def stop(self, space: Space, handle: Handle, force: bool) -> None:
        if handle.start_time and _start_time(handle.pid) not in ("", handle.start_time):
            return  # the pid now belongs to someone else
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(handle.pid, signal.SIGKILL if force else signal.SIGTERM)


@hookimpl
def cua_pool_register_space_runtimes(register: Any) -> None:
    register("process", ProcessRuntime)
