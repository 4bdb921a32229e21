"""Cua's RL worker API, for training scripts written for Cua: ``from cua_bench.workers import ...``.

The names live with the rest of Cua's interop in cua-bench-cua (``cua_bench_cua.workers``), over
cua-bench-rl, which depends on this package; so they are resolved on first use, never at import:
cua-bench does not need cua-bench-rl installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers only: at run time the names come from __getattr__ below
    from cua_bench_cua.workers import (
        CBEnvWorkerClient,
        MultiTurnDataloader,
        ReplayBuffer,
        WorkerHandle,
        WorkerPool,
        cleanup_workers,
        create_dataloader_from_urls,
        create_workers,
        wait_for_workers,
    )

__all__ = [
    "CBEnvWorkerClient",
    "MultiTurnDataloader",
    "ReplayBuffer",
    "WorkerHandle",
    "WorkerPool",
    "cleanup_workers",
    "create_dataloader_from_urls",
    "create_workers",
    "wait_for_workers",
]

_HOME = "cua_bench_cua.workers"


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module(_HOME)
    except ImportError as exc:
        where = {
            "cua_bench_rl": ("cua-bench-rl", "./packages/cua-bench-rl"),
            "cua_bench_cua": ("cua-bench-cua", "./plugins/cua-bench-cua"),
            _HOME: ("cua-bench-cua", "./plugins/cua-bench-cua"),
        }
        if exc.name not in where:
            raise  # both are there, something they need is not: say that, not this
        dist, folder = where[exc.name]
        raise ImportError(
            f"cua_bench.workers.{name} is Cua's RL worker API, over cua-bench-rl; {dist} is not installed: "
            f"`pip install {folder}` (from this repository's root)",
            name=exc.name,
        ) from exc
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
