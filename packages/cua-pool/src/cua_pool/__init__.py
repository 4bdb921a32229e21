"""cua-pool: your computers as a pool — a controller, host agents, spaces, jobs, gangs and logs."""

from typing import TYPE_CHECKING

from cua_core import lazy_getattr
from cua_pool.agent import HostAgent
from cua_pool.checkpoints import Checkpoints, checkpoints
from cua_pool.controller import Controller
from cua_pool.registry import space_runtimes
from cua_pool.space_job import space_job
from cua_pool.spaces import Handle, Space, SpaceRuntime

__version__ = "0.1.0"

# Imported on first use: what other packages' code uses of these modules, without the cost of
# importing them with the package.
if TYPE_CHECKING:
    from cua_pool import config, events
    from cua_pool.client import controller_target
    from cua_pool.config import client_security

_LAZY = {
    "controller_target": "cua_pool.client",
    "client_security": "cua_pool.config",
    # Public submodules: the client's configuration and the bus topics.
    "config": "cua_pool.config",
    "events": "cua_pool.events",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "Checkpoints",
    "Controller",
    "Handle",
    "HostAgent",
    "Space",
    "SpaceRuntime",
    "__version__",
    "checkpoints",
    "client_security",
    "config",
    "controller_target",
    "events",
    "space_job",
    "space_runtimes",
]
