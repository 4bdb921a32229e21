"""cua-bench's hooks. The built-in backends, agents and tasksets implement them like any plugin.

A plugin is a module with functions marked ``@cua_bench.hookspecs.hookimpl``, installed under
the entry-point group ``cua_bench``. Registration hooks receive a typed ``register`` callback
(llm's style): ``register(name, obj, description="one line for listings")``; the host checks
each object when it is registered and refuses duplicates, naming both plugins.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

from cua_core import Register

__all__ = ["hookimpl", "hookspec"]

if TYPE_CHECKING:
    from collections.abc import Callable

    import click

    from cua_bench.agents.base import Agent
    from cua_bench.backends.base import Backend
    from cua_bench.tasks import TaskFormat

hookspec = pluggy.HookspecMarker("cua_bench")
hookimpl = pluggy.HookimplMarker("cua_bench")


@hookspec
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    """Add backends: ``register(name, backend_class, description=...)``.

    ``backend_class`` subclasses :class:`cua_bench.Backend` and is built with no arguments; it
    provisions computers whose env servers the runner talks to.
    """


@hookspec
def cua_bench_register_agents(register: Register[Callable[..., Agent]]) -> None:
    """Add agents: ``register(name, agent_factory, description=...)``.

    ``agent_factory(**options) -> cua_bench.Agent``, where ``options`` come from
    ``--agent-option KEY=VALUE`` and are checked against the factory's signature before a run
    starts. The runner builds one agent per parallel environment.
    """


@hookspec
def cua_bench_register_tasksets(register: Register[str | Path]) -> None:
    """Add tasksets: ``register(name, folder, description=...)``; ``folder`` holds one task folder per task.

    Tasks of a registered taskset have names ``<taskset>/<task>`` (``sim/click-button``) that any
    env server with the plugin installed resolves by itself.
    """


@hookspec
def cua_bench_register_placements(register: Register[Callable[..., Backend]]) -> None:
    """Add placements, where env servers run: ``register(name, factory, description=...)``.

    ``factory(backend, where) -> Backend`` wraps the backend named ``backend`` so that its env servers
    run elsewhere (``--placement NAME[:WHERE]``: ``pool:gpu-box-2``, ``ray:10.0.0.5:6379``); ``where``
    is the text after the colon, or None. It checks ``where`` and raises ``cua_core.CuaError`` naming
    the fix before anything starts. The built-in ``here`` is the backend itself, on this computer.
    """


@hookspec
def cua_bench_register_task_formats(register: Register[TaskFormat]) -> None:
    """Add task formats: ``register(name, fmt, description=...)``; ``fmt`` is a ``cua_bench.tasks.TaskFormat``."""


@hookspec
def cua_bench_register_commands(register: Register[click.Command]) -> None:
    """Add subcommands to ``cua-bench``: ``register(name, command, description=...)``; ``command`` is a
    ``click.Command`` (a group gives ``cua-bench NAME SUB``). Asked for when the command line first
    needs a name it does not hold, or lists its commands; a name cua-bench has is refused, naming the
    plugin."""


@hookspec(firstresult=True)
def cua_bench_resolve_task(name: str) -> Path | None:
    """The task folder (or task file) that ``name`` means, or None to let other plugins answer.

    Called by the env server for ``reset(options={"task": name})``, so a server inside a
    container, a VM or on another computer resolves names itself: hosts hand it names, never
    their own paths. The built-in implementation knows ``<taskset>/<task>`` for registered
    tasksets; a taskset plugin may serve its tasks from anywhere (a package, a cache).
    """
