"""The plugin registries of cua-bench: built once per process, each registered object checked."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

from cua_bench import hookspecs
from cua_core import Registry, collect, is_callable, is_subclass_of, make_plugin_manager

if TYPE_CHECKING:
    from cua_bench.tasks import TaskFormat

__all__ = [
    "agents", "backends", "commands", "placements", "plugin_manager", "resolve_task", "task_formats", "tasksets"
]  # fmt: skip

BUILTIN = (
    "cua_bench.backends.sim",
    "cua_bench.backends.local",
    "cua_bench.agents.builtin",
    "cua_bench.agents.openai",
    "cua_bench.agents.hf",
    "cua_bench.task_names",
    "cua_bench.placement",
)


@cache
def plugin_manager() -> pluggy.PluginManager:
    return make_plugin_manager("cua_bench", hookspecs, builtins=BUILTIN)


def backends() -> Registry[Any]:
    from cua_bench.backends.base import Backend

    return collect(plugin_manager(), "cua_bench_register_backends", kind="backend", validate=is_subclass_of(Backend))


def agents() -> Registry[Any]:
    return collect(plugin_manager(), "cua_bench_register_agents", kind="agent", validate=is_callable)


def tasksets() -> Registry[str | Path]:
    # Not cached: the osworld taskset exists only while CUA_OSWORLD_TASKS names a folder.
    return collect(plugin_manager(), "cua_bench_register_tasksets", kind="taskset", validate=_is_path, cache=False)


def commands() -> Registry[Any]:
    """The subcommands plugins add to ``cua-bench`` (``cua_bench_register_commands``)."""
    return collect(plugin_manager(), "cua_bench_register_commands", kind="command", validate=_is_command)


def placements() -> Registry[Any]:
    """Where env servers may run (``cua_bench_register_placements``): ``here`` and the plugins' own."""
    return collect(plugin_manager(), "cua_bench_register_placements", kind="placement", validate=is_callable)


def task_formats() -> Registry[TaskFormat]:
    return collect(plugin_manager(), "cua_bench_register_task_formats", kind="task format", validate=_is_format)


def resolve_task(name: str) -> Path | None:
    """What a task name means here (``sim/click-button``), through the ``firstresult`` hook."""
    found = plugin_manager().hook.cua_bench_resolve_task(name=name)
    return Path(found) if found is not None else None


def _is_command(obj: Any) -> str | None:
    import click

    return None if isinstance(obj, click.Command) else f"expected a click.Command, got {type(obj).__name__}"


def _is_path(obj: Any) -> str | None:
    return None if isinstance(obj, str | Path) else f"{obj!r} is not a folder path"


def _is_format(obj: Any) -> str | None:
    missing = [m for m in ("find", "load") if not callable(getattr(obj, m, None))]
    return f"{obj!r} lacks {' and '.join(missing)} (see cua_bench.tasks.TaskFormat)" if missing else None
