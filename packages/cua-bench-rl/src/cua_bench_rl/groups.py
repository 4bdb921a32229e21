"""Groups while they fill: which episode comes next, and which rollouts each open group still needs.

The dataloader asks for the next episode whenever an environment is free: an episode an open group
still needs (a retry first), or else the first of a new group of G rollouts of a newly drawn
``EpisodeSpec``. So several groups are in flight and no environment waits for one to fill. This module is
the bookkeeping; it runs on the dataloader's loop thread only, so it needs no lock.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cua_bench import EpisodeSpec
from cua_bench_rl.rollouts import Group, Rollout

__all__ = ["Filling", "Schedule", "Slot", "TaskSource", "task_source"]

TaskSource = Sequence[EpisodeSpec] | Callable[[random.Random], EpisodeSpec]


def task_source(tasks: TaskSource, *, once: bool, seed: int) -> Callable[[], EpisodeSpec | None]:
    """A draw of the next episode: uniform over a sequence of ``EpisodeSpec`` (seeded), a function of a
    seeded Random, or (``once``) each of a sequence in order, then None."""
    rng = random.Random(seed)
    if callable(tasks) and not isinstance(tasks, Sequence):
        if once:
            raise ValueError("once=True needs a sequence of EpisodeSpecs, not a function")
        source = tasks

        def draw() -> EpisodeSpec:
            task = source(rng)
            if not isinstance(task, EpisodeSpec):
                raise TypeError(f"the tasks function returned {task!r}, not an EpisodeSpec")
            return task

        return draw
    refs = list(tasks)
    if not refs:
        raise ValueError("the loader needs at least one EpisodeSpec to play")
    wrong = [r for r in refs if not isinstance(r, EpisodeSpec)]
    if wrong:
        raise TypeError(
            f"tasks must be EpisodeSpec objects (EpisodeSpec('sim/click-button', 3, 'train')), got {wrong[0]!r}"
        )
    if once:
        order = iter(refs)
        return lambda: next(order, None)
    return lambda: rng.choice(refs)


@dataclass(eq=False)
class Filling:
    """A group of ``size`` rollouts of episode ``task`` being played; ``dropped`` once one of them could not be.

    ``prefix``: the curriculum's oracle steps, drawn once for the whole group when its first episode
    starts. GRPO's baseline is the group's mean reward, so every episode of a group must start from
    the same state: a group mixing start states rewards an action for the head start its episode got.
    """

    task: EpisodeSpec
    size: int
    episodes: list[Rollout] = field(default_factory=list)
    dropped: bool = False
    prefix: int | None = None


@dataclass(eq=False)
class Slot:
    """One episode a group still needs; ``attempts`` counts its plays (retries after a dead worker)."""

    group: Filling
    attempts: int = 0


class Schedule:
    """Hands out the episodes groups need, takes them back finished, retried or dropped."""

    def __init__(self, draw: Callable[[], EpisodeSpec | None], group_size: int) -> None:
        self._draw = draw
        self.group_size = group_size
        self._queue: deque[Slot] = deque()

    def next(self) -> Slot | None:
        """The next episode to play, or None when a ``once`` source has nothing left to open."""
        while self._queue:
            slot = self._queue.popleft()
            if not slot.group.dropped:
                return slot
        task = self._draw()
        if task is None:
            return None
        group = Filling(task, self.group_size)
        slots = [Slot(group) for _ in range(self.group_size)]
        self._queue.extend(slots[1:])
        return slots[0]

    def retry(self, slot: Slot) -> None:
        """Play ``slot`` again from reset, before anything else."""
        self._queue.appendleft(slot)

    @staticmethod
    def finish(slot: Slot, episode: Rollout) -> Group | None:
        """File ``episode``; the group once it is complete (None while it fills, or if it was dropped)."""
        group = slot.group
        if group.dropped:
            return None
        group.episodes.append(episode)
        return Group(group.task, group.episodes) if len(group.episodes) == group.size else None
