"""Where the pool keeps its state: one folder per computer, private to its user.

``$CUA_POOL_HOME`` when set, else ``<config dir>/pool`` (the config dir is ``$CUA_CONFIG_DIR``),
so a test or a second pool on one machine only has to move one variable.
"""

from __future__ import annotations

import os
from pathlib import Path

from cua_core import config_dir, ipc_address

__all__ = ["controller_home", "host_home", "local_controller_address", "pool_home"]


def pool_home() -> Path:
    explicit = os.environ.get("CUA_POOL_HOME")
    path = Path(explicit) if explicit else config_dir() / "pool"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def controller_home() -> Path:
    """The controller's database, logs, code archives and checkpoints."""
    path = pool_home() / "controller"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def host_home() -> Path:
    """The host agent's configuration and its spaces."""
    path = pool_home() / "host"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def local_controller_address() -> str:
    """The local pool's controller: an ipc socket in this user's private runtime folder."""
    return ipc_address("pool-controller")
