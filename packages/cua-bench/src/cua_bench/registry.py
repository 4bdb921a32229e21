"""The plugin registries of cua-bench, built once per process."""

from __future__ import annotations

from functools import cache
from typing import Any

import pluggy

from cua_bench import hookspecs
from cua_core.plugins import Registry, collect, make_plugin_manager

__all__ = ["agents", "backends", "plugin_manager", "task_formats", "tasksets"]

BUILTIN = (
    "cua_bench.backends.sim",
    "cua_bench.backends.local",
    "cua_bench.agents.builtin",
    "cua_bench.tasksets",
    "cua_bench.osworld.taskset",
)


@cache
def plugin_manager() -> pluggy.PluginManager:
    return make_plugin_manager("cua_bench", hookspecs, builtins=BUILTIN)


def backends() -> Registry[Any]:
    return collect(plugin_manager(), "cua_bench_register_backends", kind="backend")


def agents() -> Registry[Any]:
    return collect(plugin_manager(), "cua_bench_register_agents", kind="agent")


def tasksets() -> Registry[Any]:
    return collect(plugin_manager(), "cua_bench_register_tasksets", kind="taskset")


def task_formats() -> Registry[Any]:
    return collect(plugin_manager(), "cua_bench_register_task_formats", kind="task format")
