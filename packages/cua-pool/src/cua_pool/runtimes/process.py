"""The built-in ``process`` runtime: a member is a process session on the host itself.

The member runs under ``/bin/sh``, which waits for it and records its exit status in the space,
so the status survives the agent (a restarted agent is no longer the member's parent and could
not wait for it). The shell leads a new session: stopping the member signals the whole group.
Limits are ``ulimit`` values in that shell, inherited by everything the member starts.

On Linux, when the agent runs as root, each member also gets its own mount namespace in which
the pool's folders (config and keys, the controller's state, every other space, the runtime
folder with the controller's socket) are covered by empty tmpfs mounts and only its own space
is put back: one space cannot read another's files, nor the keys of the host it runs on.
Elsewhere (macOS, or an agent that is not root) spaces are private folders of the agent's user,
which keeps other users out but not other spaces; `cua host status` says which one applies.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cua_core import Register, config_dir, runtime_dir
from cua_pool import runner
from cua_pool.hookspecs import hookimpl
from cua_pool.paths import pool_home
from cua_pool.spaces import Handle, Space, SpaceRuntime

__all__ = ["ProcessRuntime"]

log = logging.getLogger(__name__)

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


def can_isolate() -> bool:
    """Mount-namespace isolation: Linux, root, util-linux's unshare, and not turned off."""
    return (
        sys.platform == "linux"
        and os.geteuid() == 0
        and shutil.which("unshare") is not None
        and os.environ.get("CUA_POOL_ISOLATE", "1") != "0"
        and _mount_namespaces_work()
    )


@functools.cache
def _mount_namespaces_work() -> bool:
    """Root in a container without CAP_SYS_ADMIN cannot make mount namespaces: try once."""
    try:
        done = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "mount", "-t", "tmpfs", "cua-probe", "/mnt"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    if done.returncode != 0:
        log.warning("spaces will not be isolated: mount namespaces are unavailable (%s)", done.stderr.decode().strip())
    return done.returncode == 0


def hidden_paths() -> list[str]:
    """Folders a space must not see: the pool's state, this user's keys, the runtime sockets."""
    paths = sorted({str(p.resolve()) for p in (config_dir(), pool_home(), runtime_dir())})
    # A folder inside another one is covered with it.
    return [p for p in paths if not any(p != q and p.startswith(q + "/") for q in paths)]


def isolation_script(space: Space) -> str:
    """Runs in a fresh mount namespace: cover the pool's folders, put our own space back."""
    root = shlex.quote(str(space.root))
    stash = shlex.quote(str(space.stash))
    lines = [f"mount --bind {root} {stash} || exit 126"]
    for path in hidden_paths():
        lines.append(f"mount -t tmpfs -o mode=0700,size=1m cua-hidden {shlex.quote(path)} || exit 126")
    lines.append(f"mkdir -p {root} && mount --move {stash} {root} || exit 126")
    lines.append(f"rmdir {stash}")  # the mount moved away: the parking spot is not needed any more
    lines.append(f'cd {shlex.quote(str(space.work))} && exec "$0" -P "$1"')
    return "; ".join(lines)


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

    def __init__(self, isolate: bool | None = None) -> None:
        self._children: dict[int, subprocess.Popen[bytes]] = {}
        self.isolate = can_isolate() if isolate is None else isolate

    def start(self, space: Space, env: dict[str, str]) -> Handle:
        limits = space.read_meta().get("spec", {}).get("limits", {})
        script = _SCRIPT.format(limits=limit_lines(limits))
        args = [sys.executable, str(space.exit_file), runner.__file__]
        if self.isolate:
            space.stash.mkdir(mode=0o700, exist_ok=True)
            inner = shlex.quote(isolation_script(space))
            script = script.replace(
                '"$0" -P "$2"', f'unshare --mount --propagation private /bin/sh -c {inner} "$0" "$2"'
            )
        with space.log.open("ab") as out:
            proc = subprocess.Popen(
                ["/bin/sh", "-c", script, *args],
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

    def describe(self) -> str:
        return "own mount namespace (pool folders hidden)" if self.isolate else "private folder of the agent's user"

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
def cua_pool_register_space_runtimes(register: Register[Callable[..., SpaceRuntime]]) -> None:
    register("process", ProcessRuntime)
