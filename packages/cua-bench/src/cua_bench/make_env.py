"""``cua_bench.make``: a ready environment in one line, torn down on exit (Gymnasium's ``make``).

    with cua_bench.make("sim/click-button") as env:
        obs, info = env.reset(options={"variant": 2})
        obs, reward, terminated, truncated, info = env.step([Click(Point(500, 300))])

Switching desktops is one parameter: ``backend="local"`` or ``"docker"``; the task name is the
same everywhere because servers resolve names themselves.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from cua_bench.client import EnvClient
from cua_bench.connect import client_for
from cua_bench.registry import backends

__all__ = ["make"]


@contextmanager
def make(
    task: str | None = None,
    backend: str = "sim",
    *,
    width: int = 1280,
    height: int = 800,
    step_timeout: float = 60.0,
    backend_options: Mapping[str, Any] | None = None,
    **reset_options: Any,
) -> Iterator[EnvClient]:
    """Provision a ``backend`` computer and yield a client whose ``reset()`` defaults to ``task``
    and ``reset_options`` (``variant``, ``split``, ``observes``, ``max_steps``, ``seed``)."""
    defaults = {**reset_options, **({"task": task} if task is not None else {})}
    impl = backends()[backend](**(backend_options or {}))  # the options the backend declares, checked there
    computer = impl.provision(width=width, height=height)
    try:
        with client_for(computer, step_timeout=step_timeout, defaults=defaults) as env:
            yield env
    finally:
        impl.teardown(computer)
