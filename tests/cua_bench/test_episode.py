"""The agent API: what an agent observes, the episode loop, how the Runner takes agents, tasks by name."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

import cua_bench
from cua_bench import Agent, EpisodeSpec, Observes, StepRecord, Task, center, find, run_episode
from cua_bench.runner import RunConfig, Runner
from cua_bench_tasks_sim import FOLDER as SIM
from cua_core.actions import Action, Click, Done, TypeText
from cua_core.errors import CuaError


class A11yClicker(Agent):
    """Reads the accessibility tree, clicks the button the instruction names: needs a11y, not pixels."""

    observes = Observes("none", a11y="nodes")
    seen: ClassVar[list[dict[str, Any]]] = []

    def reset(self, task: Task) -> None:
        assert isinstance(task, Task)
        self.target = re.search(r'"(.+?)"', task.description).group(1)  # type: ignore[union-attr]
        self.clicked = False

    def act(self, observation: dict[str, Any]) -> list[Action]:
        A11yClicker.seen.append(observation)
        if self.clicked:
            return [Done()]
        self.clicked = True
        return [Click(center(find(observation["a11y"], role="button", name=self.target)))]


@pytest.mark.parametrize("record", [True, False])
def test_the_runner_shows_an_agent_what_it_observes_with_or_without_recording(tmp_path: Path, record: bool) -> None:
    A11yClicker.seen = []
    config = RunConfig("sim", tmp_path / "run", agent=A11yClicker, max_parallel=2, record=record)
    config.taskset = str(SIM / "click-button")
    config.variants = 4
    summary = Runner(config).run()
    assert summary["success_rate"] == 1.0  # it scored 0 on every episode when a11y was never sent
    assert all("a11y" in o and "screenshot" not in o for o in A11yClicker.seen)
    assert (tmp_path / "run" / "trajectories").exists() is record


def spec(agent: Agent, task: str = "sim/click-button") -> EpisodeSpec:
    return EpisodeSpec(task, observes=agent.observes)


def test_screenshot_formats_and_max_size() -> None:
    class Looker(Agent):
        def __init__(self, observes: Observes) -> None:
            self.observes = observes
            self.shots: list[Any] = []

        def act(self, observation: dict[str, Any]) -> list[Action]:
            self.shots.append(observation.get("screenshot"))
            return [Done()]

    with cua_bench.make("sim/click-button") as env:
        rgb = Looker(Observes("rgb", max_size=(640, 640)))
        run_episode(env, rgb, spec(rgb))
        assert np.asarray(rgb.shots[0]).shape == (400, 640, 3)  # 1280x800 scaled to fit, aspect kept
        png = Looker(Observes("png"))
        run_episode(env, png, spec(png), record=True)
        assert bytes(png.shots[0][:8]) == b"\x89PNG\r\n\x1a\n"
        none = Looker(Observes("none"))
        outcome = run_episode(env, none, spec(none), record=True)
        assert none.shots == [None]
        assert outcome.trajectory is not None and len(outcome.trajectory.images) == 1  # recorded anyway


def test_the_loop_reports_every_step_and_keeps_the_tasks_own_step_limit() -> None:
    class Typist(Agent):
        observes = Observes("none")

        def act(self, observation: dict[str, Any]) -> list[Action]:
            return [TypeText("x")]

    steps: list[StepRecord] = []
    with cua_bench.make("sim/click-button") as env:
        outcome = run_episode(env, Typist(), spec(Typist()), on_step=steps.append)
        assert outcome.task.max_steps == 5 and outcome.steps == 5  # click-button declares 5
        assert [s.step for s in steps] == [1, 2, 3, 4, 5] and steps[-1].truncated
        assert run_episode(env, Typist(), spec(Typist()).with_(max_steps=2)).steps == 2
        oracle_steps: list[StepRecord] = []
        oracle = run_episode(
            env, cua_bench.agents.builtin.OracleAgent(), EpisodeSpec("sim/click-button"), on_step=oracle_steps.append
        )
        assert oracle.reward == 1.0 and oracle_steps[-1].terminated and oracle_steps[-1].reward == 1.0


def test_the_cli_keeps_the_tasks_max_steps_unless_given(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from cua_bench.cli import main

    base = ["run", str(SIM / "click-button"), "--agent", "random", "--variants", "2", "--json", "--no-record"]
    result = CliRunner().invoke(main, [*base, "--output", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["tasks"]["click-button"]["mean_steps"] <= 5  # it ran 50 before
    result = CliRunner().invoke(main, [*base, "--output", str(tmp_path / "b"), "--max-steps", "2"])
    assert json.loads(result.stdout)["tasks"]["click-button"]["mean_steps"] <= 2


def test_the_runner_takes_an_instance_a_factory_a_file_and_a_module(tmp_path: Path) -> None:
    task = str(SIM / "click-button")
    summary = Runner(RunConfig(task, tmp_path / "i", agent=A11yClicker(), max_parallel=1, variants=2)).run()
    assert summary["success_rate"] == 1.0 and summary["agent"] == "A11yClicker"
    with pytest.raises(CuaError, match="an Agent instance keeps one episode's state"):
        Runner(RunConfig(task, tmp_path / "j", agent=A11yClicker(), max_parallel=2))

    def factory() -> A11yClicker:
        return A11yClicker()

    summary = Runner(RunConfig(task, tmp_path / "f", agent=factory, variants=2)).run()
    assert summary["success_rate"] == 1.0
    source = tmp_path / "my_agent.py"
    source.write_text(
        textwrap.dedent("""
        from cua_bench import Agent
        from cua_core.actions import Done

        class Quitter(Agent):
            def __init__(self, *, answer: str = "no") -> None:
                self.answer = answer

            def act(self, observation):
                return [Done(self.answer)]
    """)
    )
    spec = f"{source}:Quitter"
    summary = Runner(RunConfig(task, tmp_path / "p", agent=spec, agent_options={"answer": "x"}, variants=1)).run()
    assert summary["agent"] == spec and summary["success_rate"] == 0.0 and summary["errors"] == 0
    with pytest.raises(CuaError, match=r"unknown option 'answr'; did you mean 'answer'\? \(its options: answer\)"):
        Runner(RunConfig(task, tmp_path / "q", agent=spec, agent_options={"answr": "x"}))
    with pytest.raises(CuaError, match=r"has no 'Quiter'; did you mean 'Quitter'"):
        Runner(RunConfig(task, tmp_path / "q", agent=f"{source}:Quiter"))
    with pytest.raises(CuaError, match="needs --agent-option dataset="):
        Runner(RunConfig(task, tmp_path / "q", agent="replay"))
    summary = Runner(RunConfig(task, tmp_path / "m", agent="cua_bench.agents.builtin:NoopAgent", variants=1)).run()
    assert summary["episodes"] == 1 and summary["mean_reward"] == 0.0
    assert not (tmp_path / "q").exists()  # refused before anything was made


def test_tasks_by_name_are_what_the_runner_sends_and_the_server_resolves(tmp_path: Path) -> None:
    from cua_bench.taskset import resolve_episodes

    episodes = resolve_episodes("sim", variants=1)
    assert {e.task for e in episodes if e.name == "click-button"} == {"sim/click-button"}
    assert all(e.task == f"sim/{e.name}" and e.key == f"sim/{e.name}/test/0" for e in episodes)
    folder = resolve_episodes(str(SIM / "click-button"), variants=1)[0]
    assert folder.task == str((SIM / "click-button").resolve()) and folder.name == "click-button"
    with cua_bench.make(backend="sim") as env:
        _, info = env.reset(options={"task": "sim/click-button", "variant": 2})
        assert info["task"]["name"] == "click-button" and info["task"]["variant"] == 2


def test_an_agent_whose_act_returns_text_is_named_with_what_act_must_return(tmp_path: Path) -> None:
    from support.user_errors import TextAgent

    summary = Runner(RunConfig(str(SIM / "click-button"), tmp_path / "run", agent=TextAgent, variants=1)).run()
    assert (summary["errors"], summary["scored"]) == (1, 0)
    error = json.loads((tmp_path / "run/episodes.jsonl").read_text())["error"]
    assert error.startswith("AgentError: agent TextAgent: act() must return a list of cua_core actions"), error
    assert "it returned a str ('click(500, 300)') (parse text with cua_core.parse_actions)" in error
