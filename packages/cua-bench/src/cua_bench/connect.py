"""Connecting to a provisioned computer's env server, with CURVE when it asks for it.

A provisioned computer says which: one whose env server listens beyond this host carries the
server's CURVE public key in ``computer.info["server_key"]`` (a pool job's server does, and so does
a libvirt VM's). ``client_for(computer)`` connects to any computer so, with this user's key
pair, and ``security_for(computer)`` gives the settings for a plain ``RpcClient``: code that is
handed a Computer uses them, never ``EnvClient(computer.address)``, so a CURVE-only server works
everywhere. A computer whose server is on this host at a tcp address (a Ray actor on this node) says
so with ``info["frames"] = "shm"``, and its frames then come through shared memory as on ipc.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cua_bench.client import EnvClient
from cua_core import ClientSecurity, load_or_create_keypair

if TYPE_CHECKING:  # the backends import this module: the type only, not the module
    from cua_bench.backends.base import Computer

__all__ = ["client_for", "security_for"]


def security_for(computer: Computer) -> ClientSecurity | None:
    """CURVE settings for ``computer``'s env server, with this user's key pair; None when it asks for none.

    Args:
        computer: a provisioned computer; one whose server listens beyond this host names the server's
            CURVE public key (40 Z85 characters, text or bytes) in ``info["server_key"]``.

    Returns:
        The client side of CURVE for that server, or None for a server on this host (no key given).

    Raises:
        SecurityError: the key is not a CURVE public key, or this user's key pair cannot be read.
    """
    key = computer.info.get("server_key")
    if not key:
        return None
    public = key.encode() if isinstance(key, str) else bytes(key)
    return ClientSecurity(load_or_create_keypair(), public)


def client_for(computer: Computer, **options: Any) -> EnvClient:
    """A blocking client of ``computer``'s env server, with CURVE when the computer asks for it.

    Args:
        computer: a provisioned computer (``Backend.provision``).
        **options: the rest of ``EnvClient``'s keywords (``step_timeout``, ``defaults``, ``frames``...).

    Returns:
        The client; close it (or use it as a context manager) when done.
    """
    if computer.info.get("frames") == "shm" and options.get("frames", "auto") == "auto":
        options["frames"] = "shm"  # the server is on this host; it says so if it cannot map our segment
    return EnvClient(computer.address, security=security_for(computer), **options)
