"""cua-bench's bus topics and their payloads, in one place: the runner, the TUI and tests use these.

Every payload carries ``run`` (the run's id, also in the run folder's run.json). ``env.*`` topics
are published by every episode loop, the runner's and cua-bench-rl's alike, through ``env_steps``,
so a live view of an environment does not care who drives it. A payload that does not match its
type is refused at the publisher (``check``). The table in docs/bus-topics.md is written from here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from cua_core import Action, action_to_dict, check_payload

if TYPE_CHECKING:
    from cua_bench.episode import StepRecord

__all__ = [
    "ENV_CLOSED",
    "ENV_STEP",
    "ENV_TOPICS",
    "EPISODE_FINISHED",
    "EPISODE_STARTED",
    "FIELDS_DOC",
    "PACKAGE",
    "RUN_FINISHED",
    "RUN_STARTED",
    "TOPICS",
    "VERSION",
    "EnvClosed",
    "EnvStep",
    "EpisodeFinished",
    "EpisodeStarted",
    "Publishes",
    "RunFinished",
    "RunStarted",
    "action_text",
    "check",
    "env_steps",
]

PACKAGE = "cua-bench"
VERSION = 1  # the contract's: bump it when a topic or field is renamed, removed or changes meaning

RUN_STARTED = "bench.run.started"
EPISODE_STARTED = "bench.episode.started"
EPISODE_FINISHED = "bench.episode.finished"
RUN_FINISHED = "bench.run.finished"
ENV_STEP = "env.step"
ENV_CLOSED = "env.closed"

ACTION_TEXT_MAX = 80


class RunStarted(NamedTuple):
    """An evaluation run started (or resumed) in its run folder."""

    run: str
    folder: str
    episodes: int
    todo: int
    agent: str
    taskset: str
    backend: str
    split: str


class EpisodeStarted(NamedTuple):
    """An episode started on an environment (attempt 2: its first environment failed)."""

    run: str
    episode: str
    attempt: int


class EpisodeFinished(NamedTuple):
    """An episode's result was recorded."""

    run: str
    episode: str
    task: str
    variant: int
    reward: float | None
    status: str
    steps: int
    error: str | None


class RunFinished(NamedTuple):
    """An evaluation run ended; the figures of summary.json."""

    run: str
    folder: str
    episodes: int
    success_rate: float
    mean_reward: float
    errors: int
    skipped: int
    complete: bool
    wall_s: float


class EnvStep(NamedTuple):
    """One step of an episode on an environment, by the runner or by cua-bench-rl's rollouts."""

    run: str
    env: str
    address: str
    episode: str
    task: str
    variant: int
    step: int
    action: str
    reward: float
    done: bool


class EnvClosed(NamedTuple):
    """An environment of the run was torn down for good."""

    run: str
    env: str


ENV_TOPICS: dict[str, type[Any]] = {ENV_STEP: EnvStep, ENV_CLOSED: EnvClosed}

TOPICS: dict[str, type[Any]] = {
    RUN_STARTED: RunStarted,
    EPISODE_STARTED: EpisodeStarted,
    EPISODE_FINISHED: EpisodeFinished,
    RUN_FINISHED: RunFinished,
    **ENV_TOPICS,
}

FIELDS_DOC = {
    "run": "the run's id, also in the run folder's run.json",
    "folder": "the run folder, absolute",
    "bench.run.started:episodes": "episodes in the run",
    "todo": "episodes left to play (fewer than `episodes` on a resume)",
    "agent": "the agent's name",
    "taskset": "the taskset as given (a name or a folder)",
    "backend": "the backend's registered name",
    "split": "train, validation or test",
    "episode": "the episode's key: `<task>/<split>/<variant>` in a run, the rollout's id in training",
    "attempt": "1, or 2 when the first environment failed and the episode is retried",
    "task": "the task's name",
    "variant": "the task variant",
    "bench.episode.finished:reward": "None when it was not scored (an error, or skipped)",
    "status": "ok, error or skipped",
    "steps": "steps played",
    "error": "why it errored or was skipped",
    "bench.run.finished:episodes": "episodes with a result so far (all sessions of a resumed run)",
    "success_rate": "share of scored episodes with reward 1",
    "mean_reward": "over scored episodes",
    "errors": "episodes that errored",
    "skipped": "episodes the agent or the task could not play here",
    "complete": "every episode has a result and the run was not interrupted",
    "wall_s": "wall time of all sessions",
    "env": "the environment's id within the run (`w0`, `w1`, ...; `e0`, ... for held-out evaluation)",
    "address": "the env server's RPC address (its `session.screenshot` shows the screen)",
    "step": "1 for the first step of the episode",
    "action": f"the step's actions, short (at most {ACTION_TEXT_MAX} characters)",
    "env.step:reward": "the episode's reward so far",
    "done": "the episode ended with this step",
}


def check(topic: str, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as published on ``topic``; a missing or unknown field, or a wrong type, raises ValueError."""
    return check_payload(TOPICS, topic, body, package=PACKAGE)


class Publishes(Protocol):
    """What publishes a run's events: ``cua_core.events.BestEffortPublisher`` (it adds ``run``)."""

    def publish(self, topic: str, body: dict[str, Any]) -> None: ...


def _numbers(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    )


def _arg(value: Any, wrap: bool) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= 24 else value[:23] + "…")
    if _numbers(value):
        text = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
        return f"({text})" if wrap else text  # click(512, 300), but drag((1, 2), (3, 4))
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return repr("+".join(value))
    return repr(value)


def action_text(actions: Sequence[Action]) -> str:
    """The step's actions as short text, ``click(512, 300); type('hi')``, for a live view: arguments
    left at their defaults are left out and long ones cut, so it fits a table cell."""
    parts = []
    for action in actions:
        data = action_to_dict(action)
        kind = data.pop("kind")
        defaults = {f.name: f.default for f in dataclasses.fields(action) if f.default is not dataclasses.MISSING}
        shown = [v for k, v in data.items() if v is not None and not (k in defaults and defaults[k] == v)]
        wrap = sum(map(_numbers, shown)) > 1
        args = [_arg(v, wrap) for v in shown]
        parts.append(f"{kind}({', '.join(args)})")
    text = "; ".join(parts)
    return text if len(text) <= ACTION_TEXT_MAX else text[: ACTION_TEXT_MAX - 1] + "…"


def env_steps(
    bus: Publishes,
    *,
    env: str,
    address: str,
    episode: str,
    task: str,
    variant: int,
    then: Callable[[StepRecord], None] | None = None,
) -> Callable[[StepRecord], None]:
    """An ``on_step`` for one episode (``run_episode``'s, or a rollout loop's) that publishes each step
    as ``env.step`` and then calls ``then``, if any. ``reward`` is the episode's so far."""
    total = 0.0

    def on_step(record: StepRecord) -> None:
        nonlocal total
        total += float(record.reward)
        bus.publish(
            ENV_STEP,
            {
                "env": env,
                "address": address,
                "episode": episode,
                "task": task,
                "variant": variant,
                "step": record.step,
                "action": action_text(record.actions),
                "reward": total,
                "done": bool(record.terminated or record.truncated),
            },
        )
        if then is not None:
            then(record)

    return on_step
