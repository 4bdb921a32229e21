"""The episode loop: reset, then observe / act / step until done, then the reward.

One public function, used by the Runner and by cua-bench-rl's workers, so evaluation and training
see episodes the same way. The agent is shown what its ``EpisodeSpec`` observes; the
recording (``record=True``) keeps every full-size screenshot whatever the agent asked for, and
what the agent says of each step beyond its actions (``Agent.step_notes``: a model's raw output,
parse, tokens, latency) is kept per step in ``EpisodeOutcome.step_notes``, steps without an action
included, since a trajectory's messages only hold what was done.

    with cua_bench.make("sim/click-button") as env:
        agent = MyAgent()
        outcome = run_episode(env, agent, EpisodeSpec("sim/click-button", 3, observes=agent.observes))
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cua_bench.agents.base import Agent, StopEpisode
from cua_bench.client import EnvClient
from cua_bench.spec import EpisodeSpec, Observes
from cua_bench.tasks import Task
from cua_core import Action, ActionError, CuaError, Done, Fail, action_from_dict

__all__ = ["AgentError", "EpisodeOutcome", "StepRecord", "run_episode"]

log = logging.getLogger(__name__)


class AgentError(CuaError):
    """An agent broke its contract (``act`` returned something other than a list of actions): its bug,
    named with its class, rather than an AttributeError from deep in the client."""


def _check_actions(agent: Agent, actions: object) -> None:
    if isinstance(actions, list | tuple) and all(isinstance(a, Action) for a in actions):
        return
    if isinstance(actions, list | tuple):
        wrong = next(a for a in actions if not isinstance(a, Action))
        got = f"a {type(actions).__name__} holding a {type(wrong).__name__} ({wrong!r:.80})"
    else:
        got = f"a {type(actions).__name__} ({actions!r:.80})"
    raise AgentError(
        f"agent {type(agent).__qualname__}: act() must return a list of cua_core actions, like "
        f"[Click(Point(500, 300))] or [Done()] to end the episode; it returned {got}"
        + (" (parse text with cua_core.parse_actions)" if isinstance(actions, str) else "")
    )


class EpisodeStopped(Exception):
    """``should_stop`` turned true mid-episode; nothing of the episode is kept."""


@dataclass
class StepRecord:
    """One step as the loop saw it, handed to ``on_step`` (progress, live views, RL bookkeeping)."""

    step: int
    actions: list[Action]
    observation: dict[str, Any]  # what the agent will see next
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    seconds: float  # the env's time for the step (the agent's is not included)
    notes: dict[str, Any] | None = None  # the agent's step_notes() for the step


@dataclass
class EpisodeOutcome:
    task: Task
    reward: float | None
    steps: int
    ended: Action | None  # the Done or Fail that ended it; None when truncated
    step_s: list[float] = field(default_factory=list)
    trajectory: Any = None  # a cua_data Trajectory when recorded
    screen: tuple[int, int] = (0, 0)
    stopped: str | None = None  # why the agent stopped the episode (StopEpisode); it then scores 0
    notes: dict[str, Any] = field(default_factory=dict)  # the agent's episode_notes()
    # Per act, the agent's step_notes() with its step number, for every act that had any (one that
    # stopped the episode too); the runner records them in the trajectory's metadata.
    step_notes: list[dict[str, Any]] = field(default_factory=list)


def _png(screenshot: Any) -> bytes:
    if isinstance(screenshot, bytes | memoryview):
        return bytes(screenshot)
    from cua_data import encode_png  # cua-data only when recording

    return encode_png(screenshot)


def _recorded(observation: dict[str, Any]) -> bytes | None:
    """The full screen of an observation, for the recording (taken out of what the agent sees): the
    server's ``recording`` when the agent's view is less than the screen, else the view itself."""
    shot = observation.pop("recording", None)
    if shot is None:
        shot = observation.get("screenshot")
    return None if shot is None else _png(shot)


def _record(trajectory: Any, actions: list[Action], observation: dict[str, Any]) -> None:
    shot = _recorded(observation) if "recording" in observation or trajectory is not None else None
    if trajectory is None or not actions or shot is None:
        return
    try:
        trajectory.act(actions, result_image=shot)
    except ActionError as exc:  # an action CUA-Lite cannot write: keep the episode, note the gap
        log.info("not recorded: %s", exc)


def run_episode(
    env: EnvClient,
    agent: Agent,
    spec: EpisodeSpec,
    *,
    record: bool = False,
    on_step: Callable[[StepRecord], None] | None = None,
    should_stop: threading.Event | None = None,
) -> EpisodeOutcome:
    """Play the episode ``spec`` describes; the agent is shown what ``spec.observes`` says (build the
    spec with ``observes=agent.observes`` for what the agent declares).

    Oracle agents (``Agent.oracle``) have the env server play the task's ``@solve_task``; they look
    at nothing.

    Args:
        env: a client of the env server that plays it.
        agent: who acts.
        spec: the task, variant, split, what is observed, the step limit and the seed.
        record: keep a LiteSample trajectory of every full-size screenshot (``EpisodeOutcome.trajectory``).
        on_step: called after every step.
        should_stop: set it to stop the episode between steps.

    Returns:
        The reward, the steps and their times, how it ended, and the recording.

    Raises:
        EpisodeStopped: ``should_stop`` was set.
        AgentError: the agent's ``act`` returned something other than a list of actions.
    """
    if not isinstance(spec, EpisodeSpec):
        raise TypeError(
            f"run_episode takes an EpisodeSpec, like EpisodeSpec('sim/click-button', variant=3, "
            f"observes=agent.observes); got {spec!r:.80}"
        )
    if agent.oracle:
        spec = spec.with_(observes=Observes("none"))
    obs, info = env.reset(options={**spec.to_wire(), "record": record})
    the_task = Task.from_dict(info["task"])
    trajectory = None
    if record:
        from cua_data import Trajectory  # cua-data only when recording

        trajectory = Trajectory(
            str(info.get("platform", "desktop")), the_task.description
        )  # servers before it: desktop
        trajectory.add_screenshot(_recorded(obs))  # type: ignore[arg-type]  # record=True: the server sent one
    screen = (int(obs["width"]), int(obs["height"]))
    if agent.oracle:
        solved = env.solve()
        count = len(solved["steps"])
        times = [float(step["seconds"]) for step in solved["steps"]]  # every env-protocol-2 server times its steps
        for index, step in enumerate(solved["steps"], 1):
            actions = [action_from_dict(a) for a in step["actions"]]
            _record(trajectory, actions, step["observation"])
            if on_step is not None:
                last = index == count
                gained = solved["reward"] if last else 0.0
                on_step(StepRecord(index, actions, step["observation"], gained, last, False, {}, times[index - 1]))
        return EpisodeOutcome(the_task, solved["reward"], count, Done(), times, trajectory, screen)
    agent.reset(the_task)
    step_s: list[float] = []
    ended: Action | None = None
    reward: float | None = None
    steps = 0
    stopped: str | None = None
    step_notes: list[dict[str, Any]] = []
    view = obs
    while True:
        if should_stop is not None and should_stop.is_set():
            raise EpisodeStopped
        try:
            actions = agent.act(view)
        except StopEpisode as stop:  # nothing more is done; not evaluated, so not a success
            stopped, reward, ended = str(stop), 0.0, None
            _note(step_notes, agent, steps + 1)
            break
        notes = _note(step_notes, agent, steps + 1)
        _check_actions(agent, actions)
        started = time.monotonic()
        obs, reward, terminated, truncated, info = env.step(actions)
        step_s.append(time.monotonic() - started)
        steps += 1
        ended = next((a for a in actions if isinstance(a, Done | Fail)), None)
        _record(trajectory, [a for a in actions if not isinstance(a, Done | Fail)], obs)
        view = obs
        if on_step is not None:
            on_step(StepRecord(steps, actions, view, reward, terminated, truncated, info, step_s[-1], notes))
        if terminated or truncated:
            break
    return EpisodeOutcome(
        the_task, reward, steps, ended, step_s, trajectory, screen, stopped, agent.episode_notes(), step_notes
    )


def _note(kept: list[dict[str, Any]], agent: Agent, step: int) -> dict[str, Any] | None:
    """The agent's notes on the act just made, numbered and kept (never the last act's again: a copy)."""
    notes = agent.step_notes()
    if notes is None:
        return None
    kept.append({"step": step, **notes})
    return kept[-1]
