"""A task's ``computer`` block (Cua Bench's): which OS and screen size its episode needs.

    cb.Task(..., computer={"provider": "native", "setup_config": {"os_type": "linux", "width": 1024, "height": 768}})

The env server applies it at ``reset``: the screen gets that size (``Session.resize``) and a task
that wants an OS the backend does not serve fails, naming both. The provider is not a backend
choice here (``--backend`` is); it and the keys we do not use (Cua's image, memory, wallpaper, ...)
are ignored, with a debug log line, so a Cua task runs as written.

With ``"provider": "simulated"`` Cua draws a desktop that only looks like the OS named: there the
``os_type`` is a theme (``TaskComputer.theme``), not an OS the backend must serve, so such a task
runs on a Linux backend (the env server hands the theme to ``_apply_theme``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from cua_bench.tasks import Task, TaskError

__all__ = ["MAX_SIDE", "SIMULATED", "TaskComputer", "task_computer"]

log = logging.getLogger(__name__)

MAX_SIDE = 8192  # pixels: beyond any real display, and a sim frame that size is already 200 MB
_USED = {"os_type", "width", "height"}


SIMULATED = "simulated"  # Cua's provider whose os_type is a look, not a machine


@dataclass(frozen=True)
class TaskComputer:
    provider: str | None = None
    os_type: str | None = None  # the OS the backend must serve; None: any
    width: int | None = None
    height: int | None = None
    theme: str | None = None  # the OS the desktop should look like (provider "simulated")


def task_computer(task: Task) -> TaskComputer:
    """``task.computer`` checked; a wrong type or an impossible size is a ``TaskError`` naming the task."""
    block = task.computer or {}
    where = f"task {task.name or task.description!r} variant {task.variant}"
    if not isinstance(block, dict):
        raise TaskError(f"{where}: computer must be a dict like {{'setup_config': {{'width': 1024}}}}, got {block!r}")
    provider = block.get("provider")
    if provider is not None and not isinstance(provider, str):
        raise TaskError(f"{where}: computer['provider'] must be a name, got {provider!r}")
    config = block.get("setup_config") or {}
    if not isinstance(config, dict):
        raise TaskError(f"{where}: computer['setup_config'] must be a dict, got {config!r}")
    ignored = sorted({*block} - {"provider", "setup_config"}) + sorted(set(config) - _USED)
    if ignored or provider is not None:
        log.debug(
            "%s: computer keys not used here: %s (provider %r: the backend is --backend's)", where, ignored, provider
        )
    os_type = config.get("os_type")
    if os_type is not None and (not isinstance(os_type, str) or not os_type):
        raise TaskError(f"{where}: setup_config['os_type'] must be a name like 'linux', got {os_type!r}")
    named = os_type.lower() if os_type else None
    simulated = provider is not None and provider.lower() == SIMULATED
    return TaskComputer(
        provider,
        None if simulated else named,
        _side(where, config, "width"),
        _side(where, config, "height"),
        named if simulated else None,
    )


def _side(where: str, config: dict[str, Any], key: str) -> int | None:
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_SIDE:
        raise TaskError(
            f"{where}: setup_config[{key!r}] must be a whole number of pixels in 1..{MAX_SIDE}, got {value!r}"
        )
    return value
