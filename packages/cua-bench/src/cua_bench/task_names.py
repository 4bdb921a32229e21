"""The built-in task-name resolver: ``<taskset>/<task>`` for every registered taskset.

Tasksets themselves (``sim``, ``desktop``, OSWorld's) register from their own distributions, through
``cua_bench_register_tasksets`` like any third party's; this resolver serves them all.
"""

from __future__ import annotations

from pathlib import Path

from cua_bench.hookspecs import hookimpl

__all__ = ["cua_bench_resolve_task"]


@hookimpl(trylast=True)
def cua_bench_resolve_task(name: str) -> Path | None:
    """``<taskset>/<task>``: the task of that name (its folder, or its file stem) in a registered taskset."""
    from cua_bench.registry import tasksets
    from cua_bench.taskset import task_folders

    taskset, sep, task = name.partition("/")
    registry = tasksets()
    if not sep or not task or taskset not in registry:
        return None
    folder = Path(registry[taskset])
    direct = folder / task
    if (direct / "main.py").is_file():
        return direct  # the common case, without listing the taskset
    return next((p for p in task_folders(taskset) if task in (p.name, p.stem)), None)
