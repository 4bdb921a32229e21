"""Where bus sockets live: ipc:// under the user's runtime dir on one machine, tcp:// across machines."""

from __future__ import annotations

import hashlib
import ipaddress
import os
import tempfile
from pathlib import Path

from cua_core.errors import CuaError, SecurityError

__all__ = ["check_address", "check_bind", "ipc_address", "is_local", "runtime_dir"]

# sockaddr_un.sun_path holds 108 bytes on Linux and 104 on macOS, terminator included.
_MAX_IPC_PATH = 103
# Room left for socket names below the runtime dir (the longest ours: docker/cua-env-<id>/env.sock).
_MAX_RUNTIME_DIR = 56


def runtime_dir() -> Path:
    """A private (0700) folder for this user's sockets: $CUA_RUNTIME_DIR, $XDG_RUNTIME_DIR/cua or $TMPDIR.

    A socket path must fit in ~100 bytes. When the implicit choice is too long for that (a job
    whose TMPDIR is deep in its work folder, say), a short folder under /tmp named after it is
    used instead; an explicit CUA_RUNTIME_DIR is always taken as given.
    """
    explicit = os.environ.get("CUA_RUNTIME_DIR")
    if explicit:
        path = Path(explicit)
    else:
        if os.environ.get("XDG_RUNTIME_DIR"):
            path = Path(os.environ["XDG_RUNTIME_DIR"]) / "cua"
        else:
            path = Path(tempfile.gettempdir()) / f"cua-{os.getuid()}"
        if len(str(path).encode()) > _MAX_RUNTIME_DIR:
            digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
            path = Path("/tmp") / f"cua-{os.getuid()}-{digest}"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def ipc_address(name: str) -> str:
    """``ipc://<runtime dir>/<name>.sock``; fails early if the path is too long for a unix socket."""
    path = runtime_dir() / f"{name}.sock"
    if len(str(path).encode()) > _MAX_IPC_PATH:
        raise ValueError(
            f"ipc socket path {path} is {len(str(path).encode())} bytes, over the {_MAX_IPC_PATH}-byte "
            "unix socket limit; set CUA_RUNTIME_DIR to a shorter folder"
        )
    return f"ipc://{path}"


def is_local(address: str) -> bool:
    """True for addresses no other machine can reach: ipc://, inproc:// and tcp on loopback."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        raise ValueError(f"bus address {address!r} has no scheme; use ipc://PATH or tcp://HOST:PORT")
    if scheme in ("ipc", "inproc"):
        return True
    if scheme != "tcp":
        raise ValueError(f"bus address {address!r}: scheme {scheme!r} is not one of ipc, inproc, tcp")
    host = rest.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # '*', an interface name or a host name: may be reachable from outside


def check_address(address: str) -> str:
    """``address`` if it is a bus address (``ipc://PATH`` or ``tcp://HOST:PORT``); otherwise a CuaError
    with the forms that work, not ZeroMQ's bare "Protocol not supported" from a thread later on."""
    scheme, sep, rest = address.partition("://")
    if sep and scheme == "ipc" and rest:
        return address
    if sep and scheme == "tcp":
        host, colon, port = rest.rpartition(":")
        if colon and host and ((port.isdigit() and 0 <= int(port) < 65536) or port == "*"):
            return address
    raise CuaError(f"{address!r} is not a bus address: write ipc://PATH or tcp://HOST:PORT (e.g. tcp://127.0.0.1:7070)")


def check_bind(address: str, *, secured: bool) -> None:
    """Refuse to listen beyond this machine without CURVE keys (ARCHITECTURE: the bus)."""
    if not secured and not is_local(address):
        raise SecurityError(
            f"refusing to bind {address} without CURVE keys: anyone on the network could use it. "
            "Bind a loopback or ipc:// address, or pass security= with keys "
            "(create them with `cua-bus keys init`)"
        )
