"""OpenAI's pending safety checks reach the agent's policy: stop the episode (the default) or acknowledge them.

A ``computer_call`` may carry ``pending_safety_checks``; the Responses API then expects the caller
to hand control to a person, and only to go on with ``acknowledged_safety_checks`` in the next
request's ``computer_call_output``. An unattended agent has no person to ask: by default it stops
the episode (scored 0, never a success, not even on a task whose answer is "infeasible"), and
``acknowledge_safety_checks=true`` goes on. Either way the checks are recorded with the episode.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from support.bench_tasks import make_taskset

from cua_adapters_api import openai_request
from cua_bench.agents.base import Agent, StopEpisode
from cua_bench.agents.model import ModelAgent
from cua_bench.agents.openai import OpenAIAgent
from cua_bench.episode import run_episode
from cua_bench.runner import RunConfig, Runner
from cua_bench.spec import EpisodeSpec
from cua_bench.tasks import Task
from cua_core.actions import Action, Done, Fail, TypeText
from cua_core.errors import CuaError
from cua_data import DatasetReader
from cua_data.adapters import Prompt

CHECK = {"id": "cu_sc_1", "code": "malicious_instructions", "message": "The page asks for something odd."}
TYPING: dict[str, Any] = {
    "output": [
        {
            "type": "computer_call",
            "id": "cu_1",
            "call_id": "call_1",
            "action": {"type": "type", "text": "hello"},
            "pending_safety_checks": [CHECK],
            "status": "completed",
        }
    ]
}
ANSWER: dict[str, Any] = {
    "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Typed."}]}]
}


class Scripted(ModelAgent):
    """The ``openai-computer`` adapter with a model that answers from a script; it keeps every prompt."""

    def __init__(self, answers: list[dict[str, Any]], **options: Any) -> None:
        super().__init__(adapter="openai-computer", **options)
        self.answers = [copy.deepcopy(answer) for answer in answers]
        self.prompts: list[Prompt] = []

    def generate(self, prompt: Prompt) -> dict[str, Any]:
        self.prompts.append(prompt)
        return self.answers.pop(0)


class Desk:
    """Just enough of an EnvClient: one task on a 1024x768 screen; a Done or Fail ends it with reward 1."""

    def __init__(self) -> None:
        self.steps: list[list[Action]] = []

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.observation(), {"task": Task("Type hello.", name="desk/type").to_dict()}

    def step(self, actions: list[Action]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        self.steps.append(actions)
        ended = any(isinstance(action, Done | Fail) for action in actions)
        return self.observation(), float(ended), ended, False, {}

    @staticmethod
    def observation() -> dict[str, Any]:
        return {"screenshot": np.zeros((768, 1024, 3), np.uint8), "width": 1024, "height": 768, "errors": []}


def test_by_default_the_agent_stops_the_episode_and_records_the_checks() -> None:
    desk, agent = Desk(), Scripted([TYPING])
    outcome = run_episode(desk, agent, EpisodeSpec("desk/type", observes=agent.observes), record=True)  # type: ignore[arg-type]
    assert desk.steps == []  # nothing the checked call asked for was done
    assert outcome.reward == 0.0 and outcome.ended is None
    assert outcome.stopped is not None
    assert "malicious_instructions" in outcome.stopped and "acknowledge_safety_checks=true" in outcome.stopped
    assert outcome.notes == {"safety_checks": [{**CHECK, "step": 1, "acknowledged": False}]}
    assert outcome.trajectory is not None


def test_acknowledged_checks_are_sent_back_and_recorded() -> None:
    desk, agent = Desk(), Scripted([TYPING, ANSWER], acknowledge_safety_checks=True)
    outcome = run_episode(desk, agent, EpisodeSpec("desk/type", observes=agent.observes))  # type: ignore[arg-type]
    assert desk.steps == [[TypeText("hello")], [Done("Typed.")]]
    assert outcome.stopped is None and outcome.reward == 1.0
    assert outcome.notes == {"safety_checks": [{**CHECK, "step": 1, "acknowledged": True}]}
    # The next Responses request answers the call with the checks acknowledged.
    items = openai_request(agent.prompts[1])["input"]
    (answer,) = [item for item in items if item.get("type") == "computer_call_output"]
    assert answer["call_id"] == "call_1" and answer["acknowledged_safety_checks"] == [CHECK]


def test_a_new_episode_starts_with_no_checks() -> None:
    agent = Scripted([TYPING, ANSWER], acknowledge_safety_checks=True)
    run_episode(Desk(), agent, EpisodeSpec("desk/type", observes=agent.observes))  # type: ignore[arg-type]
    assert agent.episode_notes() != {}
    agent.reset(Task("again"))
    assert agent.episode_notes() == {}


def test_the_openai_agent_takes_the_option_and_checks_it() -> None:
    agent = OpenAIAgent(model="computer-use-preview", adapter="openai-computer", acknowledge_safety_checks=True)
    assert agent.acknowledge_safety_checks is True
    with pytest.raises(CuaError, match="acknowledge_safety_checks must be true or false"):
        OpenAIAgent(model="m", adapter="openai-computer", acknowledge_safety_checks="yes")  # type: ignore[arg-type]


class Halting(Agent):
    """Stops every episode at once, with a note for the record."""

    stopped: ClassVar[str] = "a person must confirm this step"

    def act(self, observation: dict[str, Any]) -> list[Action]:
        raise StopEpisode(self.stopped)

    def episode_notes(self) -> dict[str, Any]:
        return {"safety_checks": [{**CHECK, "step": 1, "acknowledged": False}]}


def test_the_runner_scores_a_stopped_episode_0_and_keeps_why_in_the_trajectory(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 1)})
    summary = Runner(RunConfig(str(tasks), tmp_path / "run", agent=Halting, heartbeat_timeout=2)).run()
    assert summary["errors"] == 0 and summary["scored"] == 1 and summary["success_rate"] == 0.0
    (sample,) = list(DatasetReader(tmp_path / "run" / "trajectories"))
    others = sample.metadata.others
    assert others["status"] == "stopped" and others["reason"] == Halting.stopped
    assert others["safety_checks"] == [{**CHECK, "step": 1, "acknowledged": False}]
    assert json.dumps(others)  # plain JSON in the row's metadata
