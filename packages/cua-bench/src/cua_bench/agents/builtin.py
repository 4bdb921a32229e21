"""Built-in agents: the task's oracle, a seeded random agent, a do-nothing agent, and replay."""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cua_bench.agents.base import Agent, SkipEpisode
from cua_bench.hookspecs import hookimpl
from cua_bench.nodes import center, walk
from cua_bench.spec import EpisodeSpec, Observes
from cua_bench.tasks import Task
from cua_core import Action, Click, Done, Drag, KeyPress, Point, Register, Scroll, TypeText

__all__ = ["NoopAgent", "OracleAgent", "RandomA11yAgent", "RandomAgent", "ReplayAgent"]


class OracleAgent(Agent):
    """Plays each task's ``@solve_task`` (run by the env server, through unified actions only)."""

    oracle = True
    observes = Observes("none")

    def act(self, observation: dict[str, Any]) -> list[Action]:
        raise NotImplementedError("the runner asks the env server's oracle for oracle agents")


class NoopAgent(Agent):
    """Declares the task done without touching anything: every evaluator must give it 0."""

    observes = Observes("none")

    def act(self, observation: dict[str, Any]) -> list[Action]:
        return [Done()]


class RandomAgent(Agent):
    """Random clicks, drags, scrolls, keys and words; seeded per episode, so runs repeat exactly."""

    observes = Observes("none")  # it does not look
    KEYS = (("enter",), ("tab",), ("escape",), ("backspace",), ("ctrl", "a"), ("ctrl", "c"), ("ctrl", "v"), ("down",))

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, task: Task) -> None:
        self.rng = random.Random(f"{self.seed}/{task.name}/{task.variant}")

    def _point(self) -> Point:
        return Point(self.rng.uniform(0, 1000), self.rng.uniform(0, 1000))

    def act(self, observation: dict[str, Any]) -> list[Action]:
        roll = self.rng.random()
        if roll < 0.55:
            return [Click(self._point(), "left", self.rng.choice((1, 1, 1, 2)))]
        if roll < 0.7:
            word = "".join(self.rng.choice(string.ascii_lowercase) for _ in range(self.rng.randint(1, 8)))
            return [TypeText(word)]
        if roll < 0.85:
            return [KeyPress(self.rng.choice(self.KEYS))]
        if roll < 0.93:
            return [Scroll(self.rng.choice(("up", "down")), self.rng.randint(1, 5), self._point())]
        return [Drag(self._point(), self._point())]


class RandomA11yAgent(Agent):
    """Random play that knows where the widgets are: clicks a random node of the accessibility tree,
    or types a random word, or presses Enter/Tab. A family whose reward this beats its stated chance
    at is one whose evaluator a policy could game."""

    observes = Observes("none", a11y="nodes")

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, task: Task) -> None:
        self.rng = random.Random(f"{self.seed}/a11y/{task.name}/{task.variant}")

    def act(self, observation: dict[str, Any]) -> list[Action]:
        nodes = [n for n in walk(observation.get("a11y") or []) if n.get("bounds")]
        roll = self.rng.random()
        if nodes and roll < 0.7:
            return [Click(center(self.rng.choice(nodes)))]
        if roll < 0.9:
            word = "".join(self.rng.choice(string.ascii_lowercase) for _ in range(self.rng.randint(1, 8)))
            return [TypeText(word)]
        return [KeyPress(self.rng.choice((("enter",), ("tab",), ("space",))))]


class ReplayAgent(Agent):
    """Replays the actions of recorded trajectories: a past run's folder, or a LiteSample dataset folder."""

    observes = Observes("none")

    def __init__(self, dataset: str | Path) -> None:
        from cua_data import DatasetReader, from_lite_tool_call, resolve_dataset

        self.plans: dict[str, list[list[Action]]] = {}
        # nothing to replay (an empty folder) is refused too: every episode would be skipped
        for sample in DatasetReader(resolve_dataset(dataset)):
            turns = [
                from_lite_tool_call(call["function"])
                for message in sample.messages
                if message.get("role") == "assistant"
                for call in message.get("tool_calls") or []
            ]
            answer = sample.messages[-1].get("content") if sample.messages[-1].get("role") == "assistant" else None
            text = answer[0].get("text") if isinstance(answer, list) and answer else None
            self.plans[_replayed(str(sample.metadata.others.get("episode")))] = [
                *turns,
                [Done(None if text == "Done." else text)],
            ]
        self.queue: list[list[Action]] = []

    def reset(self, task: Task) -> None:
        key = f"{task.name}/{task.split}/{task.variant}"  # the task's short name: a run of a folder replays on its name
        if key not in self.plans:
            raise SkipEpisode(f"the replayed dataset has no episode {key}")
        self.queue = list(self.plans[key])

    def act(self, observation: dict[str, Any]) -> list[Action]:
        return self.queue.pop(0) if self.queue else [Done()]


def _replayed(key: str) -> str:
    """A recorded episode's key (``sim/click-button/test/3``, or an older run's ``click-button/test/3``)
    as ``click-button/test/3``, so a run is replayed whether its tasks were named or given as folders."""
    try:
        spec = EpisodeSpec.parse_key(key)
    except ValueError:
        return key
    return f"{spec.name}/{spec.split}/{spec.variant}"


@hookimpl
def cua_bench_register_agents(register: Register[Callable[..., Agent]]) -> None:
    register("oracle", OracleAgent, description="the task's own @solve_task, through actions only")
    register("random", RandomAgent, description="seeded random clicks, keys, words, scrolls and drags")
    register("random-a11y", RandomA11yAgent, description="seeded random clicks on accessibility-tree nodes and words")
    register("noop", NoopAgent, description="declares done at once (every evaluator must give 0)")
    register("replay", ReplayAgent, description="replays a recorded run: --agent-option dataset=RUN_FOLDER")
