"""cua-pool's plugin registry: space runtimes, built-ins loaded like third-party plugins."""

from __future__ import annotations

from functools import cache
from typing import Any

import pluggy

from cua_core import Registry, collect, is_callable, make_plugin_manager
from cua_pool import hookspecs

__all__ = ["BUILTIN", "plugin_manager", "space_runtimes"]

BUILTIN = ("cua_pool.runtimes.process", "cua_pool.runtimes.docker", "cua_pool.runtimes.ray")


@cache
def plugin_manager() -> pluggy.PluginManager:
    return make_plugin_manager("cua_pool", hookspecs, builtins=BUILTIN)


def space_runtimes() -> Registry[Any]:
    return collect(plugin_manager(), "cua_pool_register_space_runtimes", kind="space runtime", validate=is_callable)
