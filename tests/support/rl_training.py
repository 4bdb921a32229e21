"""Synchronous GRPO for learning tests: roll out with the current weights, train, repeat.

Unlike ``cua_bench_rl.train`` (rollouts on their own thread, a buffer, a staleness bound), nothing here
overlaps: each group is played by the version being trained, which keeps a CI-sized run simple to
reason about when it fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.loader import RolloutLoader
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Group
from cua_bench_rl.trainer import Trainer
from cua_bench_rl.workers import EnvWorkers

__all__ = ["grpo_steps"]


def grpo_steps(
    workers: EnvWorkers,
    policy: Policy,
    trainer: Trainer,
    tasks: Sequence[EpisodeSpec],
    *,
    steps: int,
    group_size: int,
    groups_per_step: int,
    curriculum: Callable[[EpisodeSpec], int] | None = None,
) -> int:
    """``steps`` optimiser steps of ``groups_per_step`` groups each; returns the steps taken."""
    loader = RolloutLoader(
        workers, tasks, group_size=group_size, observes=policy.observes, seed=0, curriculum=curriculum
    )
    taken, pending = 0, list[Group]()
    with loader:
        for batch in loader.batches(max_batch=64):
            batch.respond(policy.act(batch.turns), version=taken)
            pending += loader.pop_groups()
            if len(pending) >= groups_per_step:
                trainer.train_step(pending[:groups_per_step])
                pending, taken = pending[groups_per_step:], taken + 1
                if taken == steps:
                    break
    return taken
