"""cua-bench's hooks. The built-in backends, agents and tasksets implement them like any plugin."""

from __future__ import annotations

from collections.abc import Callable

import pluggy

hookspec = pluggy.HookspecMarker("cua_bench")
hookimpl = pluggy.HookimplMarker("cua_bench")


@hookspec
def cua_bench_register_backends(register: Callable[..., None]) -> None:
    """Add backends: ``register(name, backend_class)``; the class subclasses cua_bench.Backend."""


@hookspec
def cua_bench_register_agents(register: Callable[..., None]) -> None:
    """Add agents: ``register(name, agent_factory)``; ``agent_factory(**options) -> cua_bench.Agent``."""


@hookspec
def cua_bench_register_tasksets(register: Callable[..., None]) -> None:
    """Add tasksets: ``register(name, folder)`` where ``folder`` holds one task folder per task."""


@hookspec
def cua_bench_register_task_formats(register: Callable[..., None]) -> None:
    """Add task formats: ``register(name, fmt)``; ``fmt`` is a ``cua_bench.tasks.TaskFormat``."""
