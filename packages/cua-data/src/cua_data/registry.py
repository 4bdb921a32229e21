"""cua-data's plugin registries (converters, model adapters), built once per process."""

from __future__ import annotations

from functools import cache
from typing import Any

import pluggy

from cua_core import Registry, collect, is_callable, is_subclass_of, make_plugin_manager
from cua_data import hookspecs

__all__ = ["adapters", "converters", "plugin_manager"]

from cua_data.converters import BUILTIN


@cache
def plugin_manager() -> pluggy.PluginManager:
    return make_plugin_manager("cua_data", hookspecs, builtins=BUILTIN)


def adapters() -> Registry[Any]:
    """Every installed model adapter by name (the ``cua_data`` entry points' families)."""
    from cua_data.adapters.base import Adapter

    return collect(plugin_manager(), "cua_data_register_adapters", kind="adapter", validate=is_subclass_of(Adapter))


def converters() -> Registry[Any]:
    """Every installed converter by name (built-ins and the ``cua_data`` entry points)."""
    return collect(plugin_manager(), "cua_data_register_converters", kind="converter", validate=is_callable)
