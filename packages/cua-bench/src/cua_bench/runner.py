"""The runner: (task, variant) episodes in parallel on N environments, recorded, resumable.

Results go to ``<output>/episodes.jsonl`` only after their trajectories are committed to
``<output>/trajectories`` (a LiteSample dataset), so an interrupted run resumes exactly where its
last checkpoint left off. An env server that dies is replaced and its episode retried once, then
marked errored — never counted as a silent 0. A computer that served an episode is brought back to
how it was provisioned (``Backend.restore``: a VM reverts its snapshot) before its next; one that
cannot be is replaced like a dead one. Progress is published on the bus (``bench.*`` and
``env.*``, typed in ``cua_bench.events``); ``run.json`` in the folder names the run's id.

The agent is checked once before any computer starts (``Agent.preflight``: a model server that
does not answer is one line, not an error per episode). An agent that raises ``StopRun`` (its
server went down, its adapter cannot read the model) stops the whole run: no new episode starts,
those in progress are left for ``--resume``, finished ones stay recorded, and ``run`` raises
``RunHalted`` once the summary is written.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cua_bench import events
from cua_bench.agents.base import Agent, SkipEpisode, StopRun
from cua_bench.agents.loading import AgentSpec, agent_factory
from cua_bench.backends.base import Backend, BackendError, Computer
from cua_bench.connect import client_for
from cua_bench.episode import EpisodeStopped, StepRecord, run_episode
from cua_bench.placement import place
from cua_bench.run_marker import write_run_marker
from cua_bench.settings import check_resume, load_settings, run_settings, write_settings
from cua_bench.spec import EpisodeSpec, Observes
from cua_bench.summary import EpisodeResult, load_results, summarize
from cua_bench.tasks import REPLACE_COMPUTER, TASK_FOLDER, TRACEBACK_NOTE
from cua_bench.taskset import locate_task, resolve_episodes
from cua_core import BestEffortPublisher, CuaError, Done, Fail, ProtocolError, RemoteError, RpcTimeout
from cua_data import DatasetWriter, LiteSample, Metadata

__all__ = ["RunConfig", "RunHalted", "Runner"]

log = logging.getLogger(__name__)


# Failures of the computer, not of the agent: the episode is retried once on a fresh one.
_ENV_FAILURES = (RpcTimeout, ProtocolError, BackendError, ConnectionError)


class RunHalted(CuaError):
    """An agent stopped the run (``StopRun``); the message says why and how to go on, ``summary`` is
    what was written for the episodes that finished."""

    def __init__(self, message: str, summary: dict[str, Any]) -> None:
        super().__init__(message)
        self.summary = summary


def episodes_of(config: RunConfig) -> list[EpisodeSpec]:
    """The episodes ``config`` names, without building its backend or agent (a dry run). Their
    ``observes`` is the run's ``--obs``, or the default; ``Runner`` gives each agent's own when the
    run names none."""
    return resolve_episodes(
        config.taskset, config.split, config.variants, config.tasks, only=config.variant,
        observes=config.observes, max_steps=config.max_steps,
    )  # fmt: skip


@dataclass
class RunConfig:
    taskset: str
    output: Path
    backend: str = "sim"
    # A registered name, a "path/file.py:Class" or "module:Class" spec, an Agent class or factory,
    # or an Agent instance (then max_parallel must be 1: one agent keeps one episode's state).
    agent: AgentSpec = "oracle"
    agent_options: dict[str, Any] | None = None
    max_parallel: int = 4
    max_steps: int | None = None  # None: each task's own max_steps (50 when it declares none)
    variants: int | None = None
    split: str | None = "test"  # None: the split the tasks run by default (the run records which)
    resume: bool = False  # continue the run in ``output``; refused when its settings differ
    record: bool = True
    width: int = 1280
    height: int = 800
    commit_every: int = 25
    step_timeout: float = 60.0
    heartbeat_timeout: float = 5.0  # how soon a dead env server is noticed
    observes: Observes | None = None  # overrides what the agent declares it observes (--obs)
    tasks: str | None = None  # only these tasks: names or globs, comma-separated (--tasks)
    variant: int | None = None  # only this variant index of each task (--variant; Cua's --variant-id)
    # --debug: an errored episode keeps the env server's whole traceback (cua's frames too), not only
    # the task code's; it changes no score, so it is no setting --resume compares.
    full_tracebacks: bool = False
    placement: str = "here"  # where the backend's computers run (--placement: here, pool[:HOSTS], ray[:ADDRESS])


class _Recorder:
    """Commits trajectories, then their results, in checkpoints (one writer for all workers)."""

    def __init__(self, output: Path, record: bool, commit_every: int) -> None:
        self.results_path = output / "episodes.jsonl"
        self.trajectories = output / "trajectories"
        self.record = record
        self.commit_every = commit_every
        self.lock = threading.Lock()
        self.pending: list[EpisodeResult] = []
        self.writer = DatasetWriter(self.trajectories, dataset="trajectories") if record else None

    def add(self, result: EpisodeResult, sample: LiteSample | None) -> None:
        with self.lock:
            if self.writer is not None and sample is not None:
                self.writer.add(
                    sample,
                    split=result.split if result.split in ("train", "validation", "test") else "test",
                    variant="episodes",
                )
            self.pending.append(result)
            if len(self.pending) >= self.commit_every:
                self._commit()

    def _commit(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = DatasetWriter(self.trajectories, dataset="trajectories")
        with self.results_path.open("a") as out:
            for result in self.pending:
                out.write(result.to_json() + "\n")
        self.pending = []

    def close(self) -> None:
        with self.lock:
            self._commit()
            if self.writer is not None:
                self.writer.close()


def _previous_wall(folder: Path) -> float:
    """The wall time of the sessions before this one, so a resumed run's rates count all of it."""
    try:
        return float(json.loads((folder / "summary.json").read_text())["timings"]["wall_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


class Runner:
    def __init__(self, config: RunConfig, *, progress: Callable[[EpisodeResult], None] | None = None) -> None:
        self.progress = progress
        self.backend: Backend = place(config.backend, config.placement)
        # The tasks before the agent, which may load a model: each task module imported once, here.
        self.specs = episodes_of(config)
        self.agent_factory, self.agent_name, options = agent_factory(
            config.agent, config.agent_options or {}, max_parallel=config.max_parallel
        )
        # The options as typed, so the run records (and --resume compares) 3 for "seed=3", not "3".
        self.config = dataclasses.replace(config, agent_options=options) if config.agent_options else config
        if config.split is None:  # the run records the split it ran, never "default"
            self.config = dataclasses.replace(self.config, split=self.specs[0].split if self.specs else "test")
        # One agent is built now, so a bad option, model or adapter fails before any computer starts.
        self.run_state: dict[str, Any] = {}  # what the run's agents share (Agent.run_state)
        self.agents: list[Agent] = [self.agent_factory()]
        self.agents[0].run_state = self.run_state
        self.spare_agent: Agent | None = self.agents[0]
        self.agents_lock = threading.Lock()
        self.spare_computer: Computer | None = None
        self.stop = threading.Event()
        self.run_id = uuid.uuid4().hex[:8]
        self.backend.run_id = self.run_id
        self.backend.run_dir = Path(config.output)
        self.crashes: list[BaseException] = []  # workers that died of something unexpected
        self.halted: StopRun | None = None  # why an agent stopped the run

    def episodes(self) -> list[EpisodeSpec]:
        return self.specs

    def preflight(self) -> Computer:
        """One computer, started before anything is written: a backend that cannot start one fails the
        run here, in one line, instead of erroring every episode. The first worker then uses it."""
        try:
            return self.backend.provision(width=self.config.width, height=self.config.height)
        except CuaError as exc:
            raise CuaError(f"backend {self.config.backend!r} cannot start a computer: {exc}") from exc

    def run(self) -> dict[str, Any]:
        config = self.config
        results_path = config.output / "episodes.jsonl"
        if results_path.exists() and not config.resume:
            raise CuaError(f"{config.output} holds a run already: pass --resume to continue it, or pick a new --output")
        settings = run_settings(config, self.agent_name)
        if config.resume:
            check_resume(config.output, settings)
        done = load_results(results_path)
        previous_wall = _previous_wall(config.output) if done else 0.0
        todo: queue.Queue[EpisodeSpec] = queue.Queue()
        episodes = self.episodes()
        for episode in episodes:
            if episode.key not in done:
                todo.put(episode)
        if not todo.empty():
            self.agents[0].preflight()  # the agent's server, before any computer starts
            self.spare_computer = self.preflight()
        try:
            config.output.mkdir(parents=True, exist_ok=True)
            if not (config.resume and load_settings(config.output)):
                write_settings(config.output, settings)
            write_run_marker(config.output, self.run_id, "bench", episodes=len(episodes))
            recorder = _Recorder(config.output, config.record, config.commit_every)
            bus = BestEffortPublisher(self.run_id, check=events.check)
            folder = str(config.output.resolve())
            bus.publish(
                events.RUN_STARTED,
                {
                    "folder": folder, "episodes": len(episodes), "todo": todo.qsize(), "agent": self.agent_name,
                    "taskset": config.taskset, "backend": config.backend, "split": config.split,
                },
            )  # fmt: skip
        except BaseException:
            if self.spare_computer is not None:  # no worker will take it now: stop its env server here
                self._teardown(self.spare_computer)
                self.spare_computer = None
            raise
        started = time.monotonic()
        workers = [
            threading.Thread(target=self._guarded_work, args=(i, todo, recorder, bus), name=f"runner-{i}", daemon=True)
            for i in range(max(1, min(config.max_parallel, todo.qsize())))
        ]
        for worker in workers:
            worker.start()
        try:
            while any(w.is_alive() for w in workers):
                for worker in workers:
                    worker.join(0.2)
        except KeyboardInterrupt:
            self.stop.set()  # workers abandon their episodes (redone on --resume) and stop their envs
            for worker in workers:
                worker.join()
        finally:
            recorder.close()
        results = load_results(results_path)
        summary = summarize(
            results.values(),
            wall_s=previous_wall + time.monotonic() - started,
            taskset=config.taskset,
            backend=config.backend,
            placement=config.placement,
            agent=self.agent_name,
            split=config.split,
            complete=len(results) == len(episodes) and not self.stop.is_set(),
            settings=settings["results"],
        )
        usage, notes = self._usage()
        if usage:
            summary["agent_usage"] = usage
        if notes:
            summary["notes"] = notes
        if self.halted is not None:
            summary["stopped"] = str(self.halted)
        (config.output / "summary.json").write_text(json.dumps(summary, indent=2))
        bus.publish(
            events.RUN_FINISHED,
            {
                "folder": folder, "episodes": summary["episodes"], "success_rate": summary["success_rate"],
                "mean_reward": summary["mean_reward"], "errors": summary["errors"], "skipped": summary["skipped"],
                "complete": summary["complete"], "wall_s": summary["timings"]["wall_s"],
            },
        )  # fmt: skip
        bus.close()
        if self.halted is not None:
            then = (
                f"continue with --resume --output {config.output} once that is fixed"
                if self.halted.resumable
                else "fix that and start a new run (another --output)"
            )
            raise RunHalted(
                f"{self.halted}. The run stopped: {len(results)} of {len(episodes)} episodes finished and are kept in "
                f"{config.output}; {then}",
                summary,
            ) from self.halted
        if self.stop.is_set():
            raise KeyboardInterrupt
        if self.crashes:
            crash = self.crashes[0]
            raise CuaError(
                f"{len(self.crashes)} runner worker(s) stopped on {type(crash).__name__}: {crash} "
                f"({len(results)} of {len(episodes)} episodes done; fix it and continue with --resume)"
            ) from crash
        return summary

    def _usage(self) -> tuple[dict[str, float], list[str]]:
        """The agents' own counters (tokens, model time), summed, and their notes (each once); also closes them."""
        total: dict[str, float] = {}
        notes: list[str] = []
        for agent in self.agents:
            for key, value in agent.usage().items():
                total[key] = total.get(key, 0.0) + value
            notes += [note for note in agent.notes() if note not in notes]
            agent.close()
        return total, notes

    def _halt(self, why: StopRun) -> None:
        """An agent says no episode can go well: start none, abandon those in progress (redone on --resume)."""
        with self.agents_lock:
            if self.halted is None:
                log.warning("stopping the run: %s", why)
                self.halted = why
        self.stop.set()

    def _guarded_work(
        self, index: int, todo: queue.Queue[EpisodeSpec], recorder: _Recorder, bus: BestEffortPublisher
    ) -> None:
        """A worker that dies of an unexpected error says so at the end of the run, not only on stderr."""
        try:
            self._work(f"w{index}", todo, recorder, bus)
        except Exception as exc:
            log.exception("runner worker stopped")
            self.crashes.append(exc)

    # -- workers --------------------------------------------------------------------------------

    def _work(self, env: str, todo: queue.Queue[EpisodeSpec], recorder: _Recorder, bus: BestEffortPublisher) -> None:
        """Episodes on one environment, ``env`` on the bus (its computer may be replaced; its id stays)."""
        with self.agents_lock:
            agent, self.spare_agent = self.spare_agent or self.agent_factory(), None
            agent.run_state = self.run_state
            if all(a is not agent for a in self.agents):
                self.agents.append(agent)
            computer, self.spare_computer = self.spare_computer, None
        opened = computer is not None
        served = False  # this computer has served an episode: the next one restores it first (Backend.restore)
        try:
            while not self.stop.is_set():
                try:
                    episode = todo.get_nowait()
                except queue.Empty:
                    return
                assert episode.split is not None  # resolve_episodes names every episode's split
                result, sample = None, None
                for attempt in (1, 2):
                    try:
                        if computer is None:
                            computer = self.backend.provision(width=self.config.width, height=self.config.height)
                            opened, served = True, False
                        elif served:  # a BackendError here is an environment failure: a fresh computer
                            self.backend.restore(computer)
                        bus.publish(events.EPISODE_STARTED, {"episode": episode.key, "attempt": attempt})
                        steps = events.env_steps(
                            bus, env=env, address=computer.address, episode=episode.key, task=episode.name,
                            variant=episode.variant,
                        )  # fmt: skip
                        served = True  # from its reset on, whatever the episode's end
                        result, sample, replace = self._episode(computer, agent, episode, steps)
                        result.attempts = attempt
                        if replace:
                            log.info("episode %s: a new computer for the next episode: %s", episode.key, replace)
                            self._teardown(computer)
                            computer = None
                        break
                    except EpisodeStopped:
                        return
                    except StopRun as exc:  # not this episode's fault: left undone for --resume
                        self._halt(exc)
                        return
                    except SkipEpisode as exc:  # the agent cannot play it (replay: not recorded)
                        result = EpisodeResult(
                            episode.key, episode.name, episode.variant, episode.split, "skipped", error=str(exc)
                        )
                        break
                    except _ENV_FAILURES as exc:
                        why = self.backend.failure(computer) if computer is not None else None
                        cause = f"{type(exc).__name__}: {exc}" + (f" ({why})" if why else "")
                        log.warning(
                            "episode %s: environment failed (%s); %s",
                            episode.key,
                            cause,
                            "retrying on a fresh one" if attempt == 1 else "marking it errored",
                        )
                        if computer is not None:
                            self._teardown(computer)
                            computer = None
                        result = EpisodeResult(
                            episode.key,
                            episode.name,
                            episode.variant,
                            episode.split,
                            "error",
                            attempts=attempt,
                            error=cause,
                        )
                    except RemoteError as exc:
                        # A task that cannot run here (OSWorld's proxy or network tasks, say) is
                        # skipped with its reason; any other task failure is an error. Neither is retried.
                        skipped = exc.remote_type.rsplit(".", 1)[-1] == "TaskSkipped"
                        status = "skipped" if skipped else "error"
                        reason = exc.message if skipped else f"{type(exc).__name__}: {exc}"
                        result = EpisodeResult(
                            episode.key, episode.name, episode.variant, episode.split, status, error=reason,
                            traceback=None if skipped else self._traceback(exc, episode),
                        )  # fmt: skip
                        break
                    except CuaError as exc:  # the task itself is broken: no point retrying
                        result = EpisodeResult(
                            episode.key,
                            episode.name,
                            episode.variant,
                            episode.split,
                            "error",
                            error=f"{type(exc).__name__}: {exc}",
                        )
                        break
                # Interrupted (Ctrl-C): nothing more is kept. Halted by an agent: what finished still counts.
                if result is None or (self.stop.is_set() and self.halted is None):
                    return
                recorder.add(result, sample)
                bus.publish(
                    events.EPISODE_FINISHED,
                    {
                        "episode": episode.key, "task": result.task, "variant": result.variant,
                        "reward": result.reward, "status": result.status, "steps": result.steps, "error": result.error,
                    },
                )  # fmt: skip
                if self.progress is not None:
                    self.progress(result)
        finally:
            if computer is not None:
                self._teardown(computer)
            if opened:
                bus.publish(events.ENV_CLOSED, {"env": env})

    def _traceback(self, exc: RemoteError, episode: EpisodeSpec) -> str | None:
        """Where the task's code failed: the traceback the env server noted (``TaskModule.call``), with the
        task's folder as it is on this computer; None when the error came from elsewhere."""
        noted = next((note for note in exc.notes if note.startswith(TRACEBACK_NOTE)), None)
        # --debug: the server's whole traceback, which ends with the same note
        text = (exc.traceback or None) if self.config.full_tracebacks else noted
        return (
            None
            if text is None
            else text.replace(f'File "{TASK_FOLDER}/', f'File "{locate_task(episode.task).resolve()}/')
        )

    def _teardown(self, computer: Computer) -> None:
        try:
            self.backend.teardown(computer)
        except CuaError as exc:
            log.warning("teardown of %s failed: %s", computer.address, exc)

    def _episode(
        self, computer: Computer, agent: Agent, episode: EpisodeSpec, on_step: Callable[[StepRecord], None]
    ) -> tuple[EpisodeResult, LiteSample | None, str | None]:
        """The episode's result and sample, and why its computer must not serve another (or None)."""
        config = self.config
        assert episode.split is not None
        start = time.monotonic()
        with client_for(computer, step_timeout=config.step_timeout, heartbeat_timeout=config.heartbeat_timeout) as env:
            # The run's --obs when given, else what this agent declares: read, never written onto it.
            spec = episode if config.observes is not None else episode.with_(observes=agent.observes)
            outcome = run_episode(env, agent, spec, record=config.record, on_step=on_step, should_stop=self.stop)
        result = EpisodeResult(
            episode.key,
            episode.name,
            episode.variant,
            episode.split,
            "ok",
            outcome.reward,
            outcome.steps,
            duration_s=time.monotonic() - start,
            step_s=outcome.step_s,
            # What setup reported in reset's info (an OSWorld step that exited non-zero, say).
            setup_failures=[str(f) for f in outcome.task.metadata.get("setup_failures") or []],
            screen=list(outcome.screen),
        )
        if outcome.stopped is not None:
            log.warning("episode %s: the agent stopped it (scored 0): %s", episode.key, outcome.stopped)
        sample = None
        if outcome.trajectory is not None:
            ended = outcome.ended
            others: dict[str, Any] = {
                **outcome.notes,  # what the agent decided beyond its actions; the run's own keys win
                "id": f"{self.run_id}/{episode.key}",
                "episode": episode.key,
                "source": f"cua-bench/{config.taskset}",
                "source_id": episode.name,
                "resolution": list(outcome.screen),  # the task's own size when its computer block names one
                "os": config.backend,
                "reward": outcome.reward,
                "agent": self.agent_name,
            }
            if outcome.step_notes:
                others["agent_steps"] = outcome.step_notes  # every output as written, parsed or not
            if outcome.stopped is not None:
                others["status"], others["reason"] = "stopped", outcome.stopped
            elif isinstance(ended, Fail):
                others["status"], others["reason"] = "fail", ended.reason
            elif ended is None:
                others["status"] = "truncated"
            if isinstance(ended, Done):  # only an answer the agent gave: never a 'Done.' it did not write
                outcome.trajectory.finish(ended.answer)
            sample = LiteSample(
                Metadata(outcome.trajectory.platform, "use", others=others),
                outcome.trajectory.messages,
                outcome.trajectory.images,
            )
        # A task that leaves state reset cannot undo says so in reset's info (OSWorld's, given root).
        return result, sample, outcome.task.metadata.get(REPLACE_COMPUTER)
