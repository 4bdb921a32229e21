"""cua-pool: your computers as a pool — a controller, host agents, spaces, jobs, gangs and logs."""

from cua_pool.agent import HostAgent
from cua_pool.checkpoints import Checkpoints, checkpoints
from cua_pool.controller import Controller
from cua_pool.registry import space_runtimes
from cua_pool.space_job import space_job
from cua_pool.spaces import Handle, Space, SpaceRuntime

__version__ = "0.1.0"

__all__ = [
    "Checkpoints",
    "Controller",
    "Handle",
    "HostAgent",
    "Space",
    "SpaceRuntime",
    "__version__",
    "checkpoints",
    "space_job",
    "space_runtimes",
]
