"""Who owns what a backend leaves running, so that ``prune`` can remove what a killed process left.

Everything a backend starts outside its own process tree (a container, a VM, a lock) is labelled
with the backend, the owner (``host:pid`` of the process that started it) and the run; ``prune``
removes what carries a backend's label and whose owner is gone. A process is gone when it no longer
runs on this host; an owner on another host counts as gone too, since what is labelled lives on this
host's engine or hypervisor, which that process cannot be using.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["BACKEND_LABEL", "OWNER_LABEL", "RUN_LABEL", "alive", "labels", "owner", "owner_gone", "stale"]

BACKEND_LABEL = "io.cua.backend"  # the backend's name: what prune looks for
OWNER_LABEL = "io.cua.owner"  # host:pid of the process that started it
RUN_LABEL = "io.cua.run"  # the runner's run id, where a runner started it


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (a zombie's work is done; only its parent has not looked)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def owner() -> str:
    """This process as an owner label: ``host:pid``."""
    return f"{os.uname().nodename}:{os.getpid()}"


def labels(backend: str, run_id: str | None = None) -> dict[str, str]:
    """The labels of something ``backend`` starts now, for this process (and the run, if any)."""
    return {BACKEND_LABEL: backend, OWNER_LABEL: owner(), RUN_LABEL: run_id or ""}


def owner_gone(label: str | None) -> bool:
    """Whether the owner ``label`` names (``host:pid``) is gone: another host's, malformed, or not running."""
    host, _, pid = (label or ":").partition(":")
    return host != os.uname().nodename or not pid.isdigit() or not alive(int(pid))


def stale(found: Mapping[str, str], *, everything: bool = False) -> bool:
    """Whether what carries the labels ``found`` is prune's to remove: its owner is gone (anything of ours,
    with ``everything``)."""
    return everything or owner_gone(found.get(OWNER_LABEL))
