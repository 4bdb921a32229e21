"""cua-bench-rl's bus topics and their payloads, in one place: publishers, the TUI and tests use these.

Every payload carries ``run`` (the run's id). A payload that does not match its type is refused at
the publisher (``check``), so a renamed field fails in tests, not in someone's dashboard. The
training loop also publishes the ``env.*`` topics of its environments (``cua_bench.events``), so its
bus checks with ``check_bus``, which knows both. The table in docs/bus-topics.md is written from here.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cua_bench import events as bench_events
from cua_core import check_payload

__all__ = [
    "BUS_TOPICS",
    "FIELDS_DOC",
    "PACKAGE",
    "PIPELINE_STAGE",
    "RUN_FINISHED",
    "RUN_STARTED",
    "STEP_DONE",
    "TOPICS",
    "VERSION",
    "WORKER_REPLACED",
    "PipelineStage",
    "RunFinished",
    "RunStarted",
    "StepDone",
    "WorkerReplaced",
    "check",
    "check_bus",
]

PACKAGE = "cua-bench-rl"
VERSION = 1  # the contract's: bump it when a topic or field is renamed, removed or changes meaning

RUN_STARTED = "rl.run.started"
STEP_DONE = "rl.step.done"
WORKER_REPLACED = "rl.worker.replaced"
RUN_FINISHED = "rl.run.finished"
PIPELINE_STAGE = "rl.pipeline.stage"


class RunStarted(NamedTuple):
    """A training run started (or resumed) in its run folder."""

    run: str
    folder: str
    trainer: str
    policy: str
    tasks: int
    group_size: int
    workers: int
    step: int


class StepDone(NamedTuple):
    """The trainer took an optimiser step."""

    run: str
    step: int
    reward_mean: float
    reward_std: float
    success: float
    loss: float
    kl: float
    policy_version: int
    steps_per_s: float
    episodes: int
    buffer_size: int
    groups_dropped: int
    stale_dropped: int


class WorkerReplaced(NamedTuple):
    """An env worker died mid-episode and was replaced while the others went on."""

    run: str
    worker: int
    reason: str
    outcome: str
    episodes_retried: int
    episodes_dropped: int
    replaced: int


class RunFinished(NamedTuple):
    """The training run ended."""

    run: str
    steps: int
    seconds: float
    reward_mean: float
    eval_success: float | None
    status: str


class PipelineStage(NamedTuple):
    """A stage of ``cua-bench-rl pipeline`` started, ended or was skipped (done before a resume). The stage's
    own runs publish their events beside these (``bench.run.*`` for evaluations, ``rl.*`` for GRPO)."""

    run: str
    folder: str
    stage: str
    status: str
    seconds: float


TOPICS: dict[str, type[Any]] = {
    RUN_STARTED: RunStarted,
    STEP_DONE: StepDone,
    WORKER_REPLACED: WorkerReplaced,
    RUN_FINISHED: RunFinished,
    PIPELINE_STAGE: PipelineStage,
}

# What the training loop's bus carries: its own topics and its environments' (env.step, env.closed).
BUS_TOPICS: dict[str, type[Any]] = {**TOPICS, **bench_events.ENV_TOPICS}

FIELDS_DOC = {
    "run": "the run's id (`rl-` and 8 hex digits), also in the run folder's run.json",
    "folder": "the run folder, absolute",
    "trainer": "the trainer's registered name or FILE.py:Class",
    "policy": "the policy's registered name or FILE.py:Class",
    "tasks": "training task variants",
    "group_size": "episodes per GRPO group",
    "workers": "env workers playing rollouts",
    "rl.run.started:step": "where it starts (more than 0 when resumed)",
    "rl.step.done:step": "optimiser steps taken",
    "reward_mean": "mean episode reward (this step's groups; at the end, the last step's)",
    "reward_std": "their standard deviation",
    "success": "share of episodes with reward 1",
    "loss": "the trainer's loss",
    "kl": "KL divergence from the reference policy",
    "policy_version": "the version of the weights after this step",
    "steps_per_s": "environment steps per second since the previous optimiser step",
    "episodes": "episodes trained on in this step",
    "buffer_size": "groups in the replay buffer",
    "groups_dropped": "zero-spread groups left out of this step",
    "stale_dropped": "groups evicted for staleness so far",
    "worker": "the env worker's index",
    "reason": "why it was replaced, in words",
    "outcome": "what became of its episode: retried, dropped (with its group) or abandoned",
    "episodes_retried": "so far in this run",
    "episodes_dropped": "so far in this run",
    "replaced": "workers replaced so far in this run",
    "rl.run.finished:steps": "optimiser steps taken in all",
    "seconds": "wall time of this session of the run",
    "eval_success": "on held-out variants, when the run evaluated",
    "status": "finished, interrupted or failed",
    "stage": "baseline, sft-data, sft, sft-eval, grpo, final or report",
    "rl.pipeline.stage:run": "the pipeline's id (`pipeline-` and 8 hex digits)",
    "rl.pipeline.stage:folder": "the pipeline's folder, absolute",
    "rl.pipeline.stage:status": "started, done, skipped (done before a resume) or failed",
    "rl.pipeline.stage:seconds": "the stage's wall time (0 when it starts or is skipped)",
}


def check(topic: str, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as published on ``topic`` (an ``rl.*`` topic); a missing or unknown field, or a wrong type,
    raises ValueError."""
    return check_payload(TOPICS, topic, body, package=PACKAGE)


def check_bus(topic: str, body: dict[str, Any]) -> dict[str, Any]:
    """``check`` for the training loop's bus, which also carries its environments' ``env.*`` topics."""
    return check_payload(BUS_TOPICS, topic, body, package=PACKAGE)
