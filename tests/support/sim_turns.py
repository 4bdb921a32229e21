"""Turns of real sim tasks, played in this process: what a policy's unit tests act on.

A ``SimTurns`` holds one sim desktop and a task module; ``turn(split, variant)`` sets the variant up
(the task's own setup, as the env server runs it) and returns the ``Turn`` a policy would be handed,
seen through the policy's ``Observes`` as the env server takes it (scaled to ``max_size``). ``apply``
plays a decision's actions on that desktop and ``reward`` scores it with the task's evaluator.
"""

from __future__ import annotations

import asyncio
from typing import Any

from cua_bench import Observes
from cua_bench.sim import SimDesktop, SimSession
from cua_bench.spec import EpisodeSpec
from cua_bench.tasks import Task, load_task_module
from cua_bench.taskset import locate_task
from cua_bench.views import scale_rgb
from cua_bench_rl.rollouts import Taken, Turn
from cua_core.actions import Action, Done, Fail, action_to_dict

__all__ = ["SimTurns"]


class SimTurns:
    def __init__(self, task: str, *, width: int = 1280, height: int = 800) -> None:
        self.name = task
        self.module = load_task_module(locate_task(task))
        self.session = SimSession(SimDesktop(width, height))
        self.loop = asyncio.new_event_loop()
        self.task: Task | None = None
        self.history: list[dict[str, Any]] = []

    def close(self) -> None:
        self.loop.close()

    def _run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def turn(self, split: str, variant: int, observes: Observes, *, history: list[Taken] | None = None) -> Turn:
        task = self.module.variants(split)[variant]
        task.ended, task.history, task.scratch = None, [], {}
        self.task, self.history = task, []
        self._run(self.session.reset(seed=variant))
        self._run(self.module.run("setup_task", task, self.session))
        return self.observe(variant, split, observes, step=0, history=history)

    def observe(self, variant: int, split: str, observes: Observes, *, step: int,
                history: list[Taken] | None = None) -> Turn:  # fmt: skip
        assert self.task is not None
        obs: dict[str, Any] = {
            "instruction": self.task.description,
            "step": step,
            "width": self.session.width,
            "height": self.session.height,
            "errors": [],
        }
        if observes.screenshot != "none":
            obs["screenshot"] = scale_rgb(self.session.frame().copy(), observes.max_size)
        if observes.a11y:
            obs["a11y"] = self._run(self.session.accessibility_tree())
        ref = EpisodeSpec(self.name, variant, split, observes)
        return Turn(f"{ref.key}", ref, self.task.description, step, obs, list(history or []), self.task.max_steps or 8)

    def apply(self, actions: list[Action]) -> list[str | None]:
        """Apply the non-final actions (as the env server does); returns each one's error or None."""
        played = [a for a in actions if not isinstance(a, Done | Fail)]
        errors: list[str | None] = self._run(self.session.apply(played))
        self._run(self.session.settle())
        self.history += [action_to_dict(a) for a, e in zip(played, errors, strict=True) if not e]
        return errors

    def reward(self) -> float:
        assert self.task is not None
        self.task.history = list(self.history)
        value = self._run(self.module.run("evaluate_task", self.task, self.session))
        values = list(value) if isinstance(value, list | tuple) else [value]
        return float(sum(values) / len(values))
