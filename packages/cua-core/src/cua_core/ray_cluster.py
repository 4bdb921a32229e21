"""Find a Ray cluster to join, in seconds: ``ray.init`` on an address nobody answers waits minutes.

Shared by every part that drives a cluster the user already has (cua-bench-rl's ``--placement ray``,
cua-pool's ``--on ray``); ``ray`` is imported only when this is called.
"""

from __future__ import annotations

import socket

from cua_core.errors import CuaError

__all__ = ["check_ray_cluster"]


def check_ray_cluster(address: str | None, hint: str) -> str:
    """The cluster's GCS address, as ``ray.init(address or "auto")`` would resolve it, once its port answers.

    Raises:
        CuaError: no cluster is recorded on this computer and none was named, the address cannot be
            parsed, or nothing answers there; ``hint`` says how the user names one (``--on ray:HOST:PORT``).
    """
    from ray._private.services import canonicalize_bootstrap_address  # what ray.init resolves "auto" with

    try:
        found = canonicalize_bootstrap_address(address or "auto")
    except Exception as exc:  # no cluster recorded on this computer, or an address Ray cannot parse
        raise CuaError(
            f"no Ray cluster to join ({_last_line(exc)}): start one with `ray start --head`, or name one with {hint}"
        ) from exc
    if not found:
        raise CuaError(
            "no Ray cluster is running on this computer and none was named: start one with `ray start --head`, "
            f"or name one with {hint}"
        )
    host, _, port = found.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5.0).close()
    except (OSError, ValueError) as exc:
        raise CuaError(
            f"no Ray cluster answers at {found} ({exc}): is it up (`ray status --address {found}`)? Start one "
            "with `ray start --head`"
        ) from exc
    return str(found)


def _last_line(exc: BaseException) -> str:
    """Ray's errors run to many lines (tracebacks, advice); the last one says what happened."""
    text = str(exc).strip()
    return text.splitlines()[-1].strip() if text else type(exc).__name__
