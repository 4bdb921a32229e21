"""Which task the next group plays: uniform, or weighted by how hard each task is for the policy now.

GRPO learns only from groups whose episodes differ, and a task the policy always (or never) solves
gives none. ``DifficultySampler`` draws each task in proportion to ``p * (1 - p)``, the variance of
its success, with ``p = (successes + 1) / (episodes + 2)`` over the groups played so far (a task
not yet played starts at 1/2, the most likely to teach). ``floor`` keeps every task in play, so a
task the policy has mastered is still seen, and one it has not yet solved is still tried.
Statistics start afresh on resume.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence

from cua_bench_rl.rollouts import Group, TaskRef

__all__ = ["SAMPLINGS", "DifficultySampler"]

SAMPLINGS = ("uniform", "difficulty")


class DifficultySampler:
    """``sampler(rng)`` draws a TaskRef (a task by its weight, then one of its variants uniformly);
    ``record(group)`` counts a played group's successes (reward >= 1)."""

    def __init__(self, refs: Sequence[TaskRef], *, floor: float = 0.02) -> None:
        if not refs:
            raise ValueError("difficulty sampling needs at least one TaskRef to play")
        if not 0 < floor <= 0.25:
            raise ValueError(f"floor must be in (0, 0.25] (p(1-p) is at most 0.25), got {floor}")
        self.floor = floor
        self._by_task: dict[str, list[TaskRef]] = {}
        for ref in refs:
            self._by_task.setdefault(ref.name, []).append(ref)
        self._played = dict.fromkeys(self._by_task, (0, 0))  # task -> (successes, episodes)
        self._lock = threading.Lock()

    def weights(self) -> dict[str, float]:
        """Each task's weight now: max(floor, p(1-p)), p its smoothed success rate."""
        with self._lock:
            played = dict(self._played)
        weights = {}
        for task, (won, total) in played.items():
            p = (won + 1) / (total + 2)
            weights[task] = max(self.floor, p * (1 - p))
        return weights

    def __call__(self, rng: random.Random) -> TaskRef:
        weights = self.weights()
        task = rng.choices(list(weights), weights=list(weights.values()))[0]
        return rng.choice(self._by_task[task])

    def record(self, group: Group) -> None:
        rewards = group.rewards
        with self._lock:
            won, total = self._played.get(group.task.name, (0, 0))
            self._played[group.task.name] = (won + sum(r >= 1.0 for r in rewards), total + len(rewards))
