"""What the TUI knows: computers, jobs, runs and live environments, built from bus events and backfill.

Pure data, no Textual: the app applies each batch of events here and redraws only the views that a
batch changed, so 1,000 events a second cost a few table cells, not a redraw of everything.
"""

from __future__ import annotations

import functools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cua_bench import events as bench_events
from cua_bench_rl import events as rl_events
from cua_pool import events as pool_events

__all__ = ["SUCCESS", "VIEWS", "Env", "Host", "Job", "Model", "Run", "TaskRow"]

SUCCESS = 1.0  # an episode succeeds at this reward, as cua-bench's summary counts it
VIEWS = ("computers", "jobs", "runs", "envs")
CURVE_POINTS = 2000  # RL steps kept per run for the curves (older ones are thinned out of view, not needed)
JOB_DONE = ("succeeded", "failed", "cancelled")


@dataclass
class Host:
    id: str
    name: str
    state: str = "up"
    os: str = ""
    arch: str = ""
    cpus: int = 0
    memory: int = 0
    load: float = 0.0
    accelerators: list[str] = field(default_factory=list)
    gpus: list[int] = field(default_factory=list)
    spaces: int = 0
    max_spaces: int = 0
    jobs: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class Job:
    id: str
    fn: str = ""
    file: str = ""
    state: str = "pending"
    nodes_min: int = 1
    nodes_max: int = 1
    attempt: int = 0
    submitted: float = 0.0
    ended: float | None = None
    reason: str = ""
    hosts: list[str] = field(default_factory=list)


@dataclass
class TaskRow:
    episodes: int = 0
    successes: int = 0
    reward_sum: float = 0.0
    errors: int = 0
    skipped: int = 0

    @property
    def scored(self) -> int:
        return self.episodes - self.errors - self.skipped

    @property
    def success_rate(self) -> float | None:
        return self.successes / self.scored if self.scored else None

    @property
    def mean_reward(self) -> float | None:
        return self.reward_sum / self.scored if self.scored else None


@dataclass
class Run:
    id: str
    kind: str  # "bench" | "rl"
    folder: str = ""
    status: str = "running"  # running | finished | interrupted | failed | stopped (no events, no summary)
    title: str = ""  # what it runs: the taskset and agent, or the trainer and policy
    started: float = 0.0
    # bench
    total: int | None = None
    tasks: dict[str, TaskRow] = field(default_factory=dict)
    results: dict[str, tuple[str, float | None, str]] = field(default_factory=dict)  # episode -> task, reward, status
    errors: deque[str] = field(default_factory=lambda: deque(maxlen=50))
    # rl
    curve: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=CURVE_POINTS))
    replaced: int = 0
    eval_success: float | None = None

    @property
    def done(self) -> int:
        return len(self.results) if self.kind == "bench" else len(self.curve)

    @property
    def success_rate(self) -> float | None:
        if self.kind == "rl":
            return self.curve[-1]["success"] if self.curve else None
        scored = sum(row.scored for row in self.tasks.values())
        return sum(row.successes for row in self.tasks.values()) / scored if scored else None

    @property
    def mean_reward(self) -> float | None:
        """Over scored episodes (errors and skips are not zeros), from the per-task sums: a run of
        10,000 episodes costs its few tasks per redraw, not 10,000 results."""
        scored = sum(row.scored for row in self.tasks.values())
        return sum(row.reward_sum for row in self.tasks.values()) / scored if scored else None

    @property
    def error_count(self) -> int:
        return sum(row.errors for row in self.tasks.values())

    def add_result(self, episode: str, task: str, reward: float | None, status: str, error: str | None) -> None:
        """One finished episode; a retried episode replaces its earlier result, as the summary counts it."""
        old = self.results.get(episode)
        if old is not None:
            self._count(old[0], old[1], old[2], -1)
        self.results[episode] = (task, reward, status)
        self._count(task, reward, status, +1)
        if status == "error" and error:
            self.errors.append(f"{episode}: {error}")

    def _count(self, task: str, reward: float | None, status: str, sign: int) -> None:
        row = self.tasks.setdefault(task, TaskRow())
        row.episodes += sign
        if status == "error":
            row.errors += sign
        elif status == "skipped":
            row.skipped += sign
        elif reward is not None:
            row.reward_sum += sign * reward
            row.successes += sign * (reward >= SUCCESS)


@dataclass
class Env:
    run: str
    env: str
    address: str = ""
    episode: str = ""
    task: str = ""
    variant: int = 0
    step: int = 0
    action: str = ""
    reward: float = 0.0
    done: bool = False
    updated: float = 0.0

    @property
    def key(self) -> str:
        return f"{self.run}/{self.env}"


class Model:
    """The TUI's state; ``apply`` takes one bus event and returns the views it changed."""

    def __init__(self) -> None:
        self.hosts: dict[str, Host] = {}
        self.jobs: dict[str, Job] = {}
        self.runs: dict[str, Run] = {}
        self.envs: dict[str, Env] = {}
        self.folders: dict[str, str] = {}  # run folder -> run id, so backfill and events meet
        self.events = 0
        self.unknown_topics = 0
        self._handlers: dict[str, Callable[[dict[str, Any]], str]] = {
            pool_events.HOST_JOINED: self._host_joined,
            pool_events.HOST_BACK: self._host_back,
            pool_events.HOST_LOST: self._host_lost,
            pool_events.JOB_SUBMITTED: self._job_submitted,
            pool_events.JOB_PLACED: self._job_placed,
            pool_events.JOB_MEMBER_RUNNING: self._member_running,
            pool_events.JOB_ATTEMPT_FAILED: self._attempt_failed,
            pool_events.JOB_RESTARTING: self._job_restarting,
            bench_events.RUN_STARTED: self._bench_started,
            bench_events.EPISODE_STARTED: self._bench_episode_started,
            bench_events.EPISODE_FINISHED: self._bench_episode_finished,
            bench_events.RUN_FINISHED: self._bench_finished,
            bench_events.ENV_STEP: self._env_step,
            bench_events.ENV_CLOSED: self._env_closed,
            rl_events.RUN_STARTED: self._rl_started,
            rl_events.STEP_DONE: self._rl_step,
            rl_events.WORKER_REPLACED: self._rl_worker_replaced,
            rl_events.RUN_FINISHED: self._rl_finished,
            rl_events.PIPELINE_STAGE: self._rl_pipeline_stage,
        }
        for topic, state in zip(
            (pool_events.JOB_SUCCEEDED, pool_events.JOB_FAILED, pool_events.JOB_CANCELLED), JOB_DONE, strict=True
        ):
            self._handlers[topic] = functools.partial(self._job_ended, state)

    # -- events ---------------------------------------------------------------------------------

    def apply(self, topic: str, body: Any) -> str | None:
        """Fold one event in; returns the view it changed (None for a topic this TUI does not show)."""
        self.events += 1
        handler = self._handlers.get(topic)
        if handler is None or not isinstance(body, dict):
            self.unknown_topics += 1
            return None
        try:
            return handler(body)
        except (KeyError, TypeError, ValueError):
            # A publisher from another version of the contract: counted, never a crash of the UI.
            self.unknown_topics += 1
            return None

    def _host(self, host_id: str) -> Host:
        return self.hosts.setdefault(host_id, Host(host_id, host_id))

    def _host_joined(self, body: dict[str, Any]) -> str:
        host = self._host(body["host"])
        host.name, host.state, host.reason = body["name"], "up", ""
        return "computers"

    def _host_back(self, body: dict[str, Any]) -> str:
        host = self._host(body["host"])
        host.state, host.reason = "up", ""
        return "computers"

    def _host_lost(self, body: dict[str, Any]) -> str:
        host = self._host(body["host"])
        host.state, host.reason = "lost", body["reason"]
        return "computers"

    def _job(self, job_id: str) -> Job:
        return self.jobs.setdefault(job_id, Job(job_id, submitted=time.time()))

    def _job_submitted(self, body: dict[str, Any]) -> str:
        job = self._job(body["job"])
        job.fn, job.file = body["fn"], body["file"]
        return "jobs"

    def _job_placed(self, body: dict[str, Any]) -> str:
        job = self._job(body["job"])
        job.state, job.attempt, job.hosts, job.reason = "running", int(body["attempt"]), list(body["hosts"]), ""
        return "jobs"

    def _member_running(self, body: dict[str, Any]) -> str:
        self._job(body["job"]).state = "running"
        return "jobs"

    def _attempt_failed(self, body: dict[str, Any]) -> str:
        job = self._job(body["job"])
        job.reason = body["reason"]
        return "jobs"

    def _job_restarting(self, body: dict[str, Any]) -> str:
        job = self._job(body["job"])
        job.state = "restarting"
        return "jobs"

    def _job_ended(self, state: str, body: dict[str, Any]) -> str:
        job = self._job(body["job"])
        job.state, job.ended = state, time.time()
        return "jobs"

    def _bench_run(self, run_id: str) -> Run:
        return self.runs.setdefault(run_id, Run(run_id, "bench", started=time.time()))

    def _bench_started(self, body: dict[str, Any]) -> str:
        run = self._bench_run(body["run"])
        run.folder, run.total, run.status = body["folder"], int(body["episodes"]), "running"
        run.title = f"{body['agent']} on {body['taskset']} ({body['backend']}, {body['split']})"
        self.folders[run.folder] = run.id
        return "runs"

    def _bench_episode_started(self, body: dict[str, Any]) -> str:
        self._bench_run(body["run"])
        return "runs"

    def _bench_episode_finished(self, body: dict[str, Any]) -> str:
        run = self._bench_run(body["run"])
        run.add_result(body["episode"], body["task"], body["reward"], body["status"], body["error"])
        return "runs"

    def _bench_finished(self, body: dict[str, Any]) -> str:
        run = self._bench_run(body["run"])
        run.status = "finished" if body["complete"] else "interrupted"
        if run.total is None:
            run.total = int(body["episodes"])
        return "runs"

    def _env_step(self, body: dict[str, Any]) -> str:
        key = f"{body['run']}/{body['env']}"
        env = self.envs.get(key)
        if env is None:
            env = self.envs[key] = Env(body["run"], body["env"])
        env.address, env.episode, env.task = body["address"], body["episode"], body["task"]
        env.variant, env.step, env.action = int(body["variant"]), int(body["step"]), body["action"]
        env.reward, env.done, env.updated = float(body["reward"]), bool(body["done"]), time.time()
        return "envs"

    def _env_closed(self, body: dict[str, Any]) -> str:
        self.envs.pop(f"{body['run']}/{body['env']}", None)
        return "envs"

    def _rl_run(self, run_id: str) -> Run:
        return self.runs.setdefault(run_id, Run(run_id, "rl", started=time.time()))

    def _rl_started(self, body: dict[str, Any]) -> str:
        run = self._rl_run(body["run"])
        run.folder, run.status = body["folder"], "running"
        run.title = f"{body['trainer']} · {body['policy']} · {body['tasks']} tasks × G={body['group_size']}"
        self.folders[run.folder] = run.id
        return "runs"

    def _rl_step(self, body: dict[str, Any]) -> str:
        run = self._rl_run(body["run"])
        run.curve.append({k: v for k, v in body.items() if k != "run"})
        return "runs"

    def _rl_worker_replaced(self, body: dict[str, Any]) -> str:
        run = self._rl_run(body["run"])
        run.replaced = int(body["replaced"])
        run.errors.append(f"worker {body['worker']} replaced ({body['outcome']}): {body['reason']}")
        return "runs"

    def _rl_finished(self, body: dict[str, Any]) -> str:
        run = self._rl_run(body["run"])
        run.status = body["status"]
        run.eval_success = body["eval_success"]
        return "runs"

    def _rl_pipeline_stage(self, body: dict[str, Any]) -> str:
        run = self._rl_run(body["run"])
        stage, status = body["stage"], body["status"]
        run.folder, run.title = body["folder"], f"pipeline · {stage} {status}"
        self.folders[run.folder] = run.id
        if status == "failed":
            run.status = "failed"
            run.errors.append(f"stage {stage} failed after {float(body['seconds']):.0f} s")
        else:
            run.status = "finished" if (stage, status) == ("report", "done") else "running"
        return "runs"

    # -- backfill -------------------------------------------------------------------------------

    def load_computers(self, rows: list[dict[str, Any]]) -> None:
        """The controller's view replaces ours: it is the truth, events only keep it fresh between polls."""
        seen = set()
        for row in rows:
            host = self._host(row["id"])
            seen.add(host.id)
            host.name, host.state = row["name"], row["state"]
            host.os, host.arch = row.get("os") or "", row.get("arch") or ""
            host.cpus, host.memory = int(row.get("cpus") or 0), int(row.get("memory") or 0)
            host.load = float(row.get("load") or 0.0)
            host.accelerators, host.gpus = list(row.get("accelerators") or []), list(row.get("gpus") or [])
            host.spaces, host.max_spaces = int(row.get("spaces") or 0), int(row.get("max_spaces") or 0)
            host.jobs = list(row.get("jobs") or [])
        for gone in set(self.hosts) - seen:
            del self.hosts[gone]

    def load_jobs(self, rows: list[dict[str, Any]]) -> None:
        seen = set()
        for row in rows:
            job = self._job(row["id"])
            seen.add(job.id)
            job.fn, job.file, job.state = row["fn"], row["file"], row["state"]
            job.nodes_min, job.nodes_max = int(row["nodes_min"]), int(row["nodes_max"])
            job.attempt, job.reason = int(row.get("attempt") or 0), row.get("reason") or ""
            job.submitted, job.ended = float(row["submitted"]), row.get("ended")
        for gone in set(self.jobs) - seen:
            del self.jobs[gone]

    def add_run(self, run: Run) -> None:
        """A run read from its folder; live events already seen for it are kept over the folder's copy
        only where they are newer (more episodes, more steps)."""
        live = self.runs.get(run.id)
        if live is not None and live.done > run.done:
            live.folder = live.folder or run.folder
            live.title = live.title or run.title
            live.total = live.total or run.total
            return
        if live is not None and live.status == "running" and run.status == "stopped":
            run.status = "running"  # its events are arriving: it runs
        self.runs[run.id] = run
        if run.folder:
            self.folders[run.folder] = run.id
