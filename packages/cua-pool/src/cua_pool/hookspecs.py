"""cua-pool's hooks. The built-in ``process`` runtime implements them like any third-party plugin."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

from cua_core import Register

if TYPE_CHECKING:
    from cua_pool.spaces import SpaceRuntime

hookspec = pluggy.HookspecMarker("cua_pool")
hookimpl = pluggy.HookimplMarker("cua_pool")


@hookspec
def cua_pool_register_space_runtimes(register: Register[Callable[..., SpaceRuntime]]) -> None:
    """Add space runtimes: ``register(name, runtime_factory)``.

    ``runtime_factory(**options) -> cua_pool.SpaceRuntime``: the object that starts a member's
    process (or container) in a prepared space folder, tells whether it is still running, and stops
    it. A runtime must let a host agent that restarted find its members again from the folder alone
    (``adopt``), because jobs outlive their agent.
    """
