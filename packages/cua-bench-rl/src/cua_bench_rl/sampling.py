"""Which task the next group plays: uniform, or weighted by how hard each task is for the policy now.

GRPO learns only from groups whose episodes differ, and a task the policy always (or never) solves
gives none. ``DifficultySampler`` draws each task in proportion to ``p * (1 - p)``, the variance of
its success, with ``p = (successes + 1) / (episodes + 2)`` over the groups played so far (a task
not yet played starts at 1/2, the most likely to teach). ``floor`` keeps every task in play, so a
task the policy has mastered is still seen, and one it has not yet solved is still tried.

``per="variant"`` weighs each (task, split, variant) on its own: the unit an LLM trainer calls a
prompt. A family of many variants is one task, and the policy masters some of its variants long
before others; drawn uniformly, most groups late in a run are variants it always solves, which
teach nothing and are dropped. ``window`` keeps only each unit's last groups, so the estimate
follows the policy as it improves (a variant failed early and mastered since is not kept at 1/2 by
its old failures). Statistics start afresh on resume.
"""

from __future__ import annotations

import random
import threading
from collections import deque
from collections.abc import Sequence

from cua_bench import EpisodeSpec
from cua_bench_rl.rollouts import Group

__all__ = ["SAMPLINGS", "DifficultySampler"]

SAMPLINGS = ("uniform", "difficulty", "variant-difficulty")


class DifficultySampler:
    """``sampler(rng)`` draws an ``EpisodeSpec`` (a unit by its weight, then, per task, one of its variants
    uniformly); ``record(group)`` counts a played group's successes (reward >= 1).

    ``per``: ``"task"`` (a unit is a task, ``EpisodeSpec.task``) or ``"variant"`` (a unit is an
    episode, ``EpisodeSpec.key``: task, split and variant; how it is observed is no part of it).
    ``window``: how many of a unit's last groups its estimate counts (None: all of them).
    """

    def __init__(
        self, refs: Sequence[EpisodeSpec], *, floor: float = 0.02, per: str = "task", window: int | None = None
    ) -> None:
        if not refs:
            raise ValueError("difficulty sampling needs at least one EpisodeSpec to play")
        if not 0 < floor <= 0.25:
            raise ValueError(f"floor must be in (0, 0.25] (p(1-p) is at most 0.25), got {floor}")
        if per not in ("task", "variant"):
            raise ValueError(f"per must be 'task' or 'variant', got {per!r}")
        if window is not None and window < 1:
            raise ValueError(f"window must be at least 1 group (or None for all), got {window}")
        self.floor, self.per, self.window = floor, per, window
        self._refs: dict[str, list[EpisodeSpec]] = {}
        for ref in refs:
            self._refs.setdefault(self._unit(ref), []).append(ref)
        self._played = dict.fromkeys(self._refs, (0, 0))  # unit -> (successes, episodes) in the window
        self._groups: dict[str, deque[tuple[int, int]]] = {}  # unit -> its window's groups, oldest first
        self._lock = threading.Lock()

    def _unit(self, ref: EpisodeSpec) -> str:
        return ref.task if self.per == "task" else ref.key

    def weights(self) -> dict[str, float]:
        """Each unit's weight now: max(floor, p(1-p)), p its smoothed success rate."""
        with self._lock:
            played = dict(self._played)
        weights = {}
        for unit, (won, total) in played.items():
            p = (won + 1) / (total + 2)
            weights[unit] = max(self.floor, p * (1 - p))
        return weights

    def __call__(self, rng: random.Random) -> EpisodeSpec:
        weights = self.weights()
        unit = rng.choices(list(weights), weights=list(weights.values()))[0]
        return rng.choice(self._refs[unit])

    def record(self, group: Group) -> None:
        unit = self._unit(group.task)
        played = (sum(r >= 1.0 for r in group.rewards), len(group.rewards))
        with self._lock:
            won, total = self._played.get(unit, (0, 0))
            won, total = won + played[0], total + played[1]
            if self.window is not None:  # only the window's groups are kept, to be forgotten in turn
                groups = self._groups.setdefault(unit, deque())
                groups.append(played)
                if len(groups) > self.window:
                    old = groups.popleft()
                    won, total = won - old[0], total - old[1]
            self._played[unit] = (won, total)
