"""The start-state curriculum: episodes begin after the oracle's first k steps, annealed away.

A multi-step task scored strictly from its true start is almost never solved by an untrained policy,
so GRPO sees groups that all score 0 and learns nothing. Starting past early subgoals (the env server's
``solve(steps=k)``) makes the last steps learnable first, then the ones before them (a reverse
curriculum). Three rules keep it honest:

- k is drawn once per group (the loader asks once per group), so a group's baseline compares episodes
  from one start state;
- k is at most ``start`` at step 0, falling linearly to 0 by optimiser step ``steps``: after that every
  episode starts from the true start state, which is also where every held-out evaluation starts;
- within that bound, levels the policy has not mastered are drawn more often: the weight of level k is
  ``1 - success(k) + floor``, success being a moving average of its groups' strict success. Training
  on levels already solved teaches nothing (their groups all score 1 and are dropped).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from cua_bench_rl.rollouts import Group

__all__ = ["Curriculum"]


class Curriculum:
    """``Curriculum(start, steps, step_of, seed=0)``: call it for a group's k; ``record`` its outcome."""

    FLOOR = 0.05  # a mastered level is still drawn now and then: a policy can unlearn it
    SMOOTHING = 0.2  # weight of the newest group in a level's moving success

    def __init__(self, start: int, steps: int, step_of: Callable[[], int], seed: int = 0) -> None:
        if start < 0 or steps < 0:
            raise ValueError(f"curriculum start and steps must be >= 0, got start={start}, steps={steps}")
        self.start, self.steps, self.step_of = start, steps, step_of
        self.rng = random.Random(seed)
        self.success: dict[int, float] = {}
        self._lock = threading.Lock()

    def most(self) -> int:
        """The largest k offered now: ``start`` at step 0, annealed linearly to 0 by ``steps``."""
        left = 1.0 - self.step_of() / max(1, self.steps)
        return round(self.start * max(0.0, left))

    def __call__(self, _task: Any) -> int:
        levels = list(range(self.most() + 1))
        with self._lock:
            weights = [1.0 - self.success.get(k, 0.0) + self.FLOOR for k in levels]
            return self.rng.choices(levels, weights)[0]

    def describe(self) -> str:
        """``k <= 3, success by k: 0 0.12, 1 0.50, ...``: where the curriculum stands, for the log."""
        with self._lock:
            levels = ", ".join(f"{k} {v:.2f}" for k, v in sorted(self.success.items()))
        return f"k <= {self.most()}, success by k: {levels or 'none yet'}"

    def record(self, group: Group) -> None:
        """Count a finished group toward its level (its episodes all started after the same prefix)."""
        if not group.episodes:
            return
        level = group.episodes[0].started_after
        solved = sum(float(e.reward or 0.0) >= 1.0 for e in group.episodes) / len(group.episodes)
        with self._lock:
            before = self.success.get(level, solved)
            self.success[level] = (1 - self.SMOOTHING) * before + self.SMOOTHING * solved
