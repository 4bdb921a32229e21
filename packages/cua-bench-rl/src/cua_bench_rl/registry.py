"""cua-bench-rl's plugin registries (trainers), built once per process."""

from __future__ import annotations

from functools import cache
from typing import Any

import pluggy

from cua_bench_rl import hookspecs
from cua_core import Registry, collect, is_callable, is_subclass_of, make_plugin_manager

__all__ = ["plugin_manager", "policies", "sft_trainers", "trainers"]


@cache
def plugin_manager() -> pluggy.PluginManager:
    return make_plugin_manager("cua_bench_rl", hookspecs, builtins=[])


def trainers() -> Registry[Any]:
    """Every installed trainer by name (the ``cua_bench_rl`` entry points')."""
    from cua_bench_rl.trainer import Trainer

    return collect(plugin_manager(), "cua_bench_rl_register_trainers", kind="trainer", validate=is_subclass_of(Trainer))


def policies() -> Registry[Any]:
    """Every installed policy factory by name (the ``cua_bench_rl`` entry points')."""
    return collect(plugin_manager(), "cua_bench_rl_register_policies", kind="policy", validate=is_callable)


def sft_trainers() -> Registry[Any]:
    """Every installed SFT trainer by name (the ``cua_bench_rl`` entry points')."""
    from cua_bench_rl.sft import SFTTrainer

    return collect(
        plugin_manager(), "cua_bench_rl_register_sft_trainers", kind="SFT trainer", validate=is_subclass_of(SFTTrainer)
    )
