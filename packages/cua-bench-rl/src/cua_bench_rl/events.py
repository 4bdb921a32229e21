"""cua-bench-rl's bus topics and their payloads, in one place: publishers, the TUI and tests use these.

Every payload carries ``run`` (the run's id). A payload that does not match its type is refused at
the publisher (``check``), so a renamed field fails in tests, not in someone's dashboard.
"""

from __future__ import annotations

import typing
from typing import Any, NamedTuple

__all__ = [
    "RUN_FINISHED",
    "RUN_STARTED",
    "STEP_DONE",
    "TOPICS",
    "WORKER_REPLACED",
    "RunFinished",
    "RunStarted",
    "StepDone",
    "WorkerReplaced",
    "check",
]

RUN_STARTED = "rl.run.started"
STEP_DONE = "rl.step.done"
WORKER_REPLACED = "rl.worker.replaced"
RUN_FINISHED = "rl.run.finished"


class RunStarted(NamedTuple):
    run: str
    folder: str
    trainer: str
    policy: str
    tasks: int
    group_size: int
    workers: int
    step: int  # where it starts (more than 0 when resumed)


class StepDone(NamedTuple):
    run: str
    step: int
    reward_mean: float
    reward_std: float
    success: float  # share of episodes with reward 1
    loss: float
    kl: float
    policy_version: int
    steps_per_s: float  # environment steps per second since the previous optimiser step
    episodes: int  # episodes trained on in this step
    buffer_size: int  # groups in the replay buffer
    groups_dropped: int  # zero-spread groups left out of this step
    stale_dropped: int  # groups evicted for staleness so far


class WorkerReplaced(NamedTuple):
    run: str
    worker: int
    reason: str
    outcome: str  # what became of its episode: retried | dropped (with its group) | abandoned
    episodes_retried: int  # so far in this run
    episodes_dropped: int  # so far in this run
    replaced: int  # workers replaced so far in this run


class RunFinished(NamedTuple):
    run: str
    steps: int
    seconds: float
    reward_mean: float
    eval_success: float | None  # on held-out variants, when the run evaluated
    status: str  # finished | interrupted | failed


TOPICS: dict[str, type[Any]] = {
    RUN_STARTED: RunStarted,
    STEP_DONE: StepDone,
    WORKER_REPLACED: WorkerReplaced,
    RUN_FINISHED: RunFinished,
}


def check(topic: str, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as published on ``topic``; a missing or unknown field, or a wrong type, raises ValueError."""
    payload = TOPICS.get(topic)
    if payload is None:
        raise ValueError(f"{topic!r} is not a cua-bench-rl topic; known: {', '.join(TOPICS)}")
    fields = payload._fields
    missing = [f for f in fields if f not in body]
    extra = [k for k in body if k not in fields]
    if missing or extra:
        raise ValueError(
            f"{topic}: missing {missing or 'nothing'}, unknown {extra or 'nothing'} (fields: {', '.join(fields)})"
        )
    for name, kind in typing.get_type_hints(payload).items():
        value = body[name]
        # A float field takes ints (JSON and msgpack do not keep 1.0 apart from 1); never bools.
        allowed = kind | int if float in typing.get_args(kind) or kind is float else kind
        if isinstance(value, bool) or not isinstance(value, allowed):
            raise ValueError(f"{topic}.{name}: {value!r} is not {getattr(kind, '__name__', kind)}")
    return dict(body)
