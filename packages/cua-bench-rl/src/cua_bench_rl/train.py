"""The training loop: rollouts on env workers, a replay buffer, a trainer, a run folder.

Rollouts and training overlap. A rollout thread answers the dataloader's turns with the *rollout
copy* of the policy and files finished groups into the replay buffer; the main thread samples
groups within the staleness bound, takes an optimiser step on the trained copy, and publishes the
new weights to the rollout copy with the next version (version = optimiser steps taken). So the
environments never wait for a backward pass, and no group older than ``max_staleness`` versions is
trained on.

The run folder holds everything a resume needs::

    config.json          the settings (--resume refuses a different one, naming the setting)
    run.json             the id of the run working in it (its events on the bus carry it)
    checkpoints/step-N/  trainer state (model or adapter, optimiser, step) and meta.json
    model/               the trained model, for policies that write one (a VLM: ``--agent hf --model`` loads it)
    buffer/              the replay buffer, as LiteSample RL records
    curve.csv curve.png  one row per optimiser step; held-out success where evaluated
    summary.json         the last figures, written at the end
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import random
import statistics
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_bench import EpisodeSpec, write_run_marker
from cua_bench.events import ENV_CLOSED
from cua_bench_rl import events
from cua_bench_rl.build import build_policy, build_trainer, check_settings
from cua_bench_rl.checkpoints import newest_checkpoint, save_checkpoint
from cua_bench_rl.config import TrainConfig
from cua_bench_rl.curriculum import Curriculum
from cua_bench_rl.curves import CurveLog, draw_curves
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Group
from cua_bench_rl.sampling import DifficultySampler
from cua_bench_rl.trainer import Trainer
from cua_core import BestEffortPublisher, CuaError

__all__ = ["TrainResult", "train"]

log = logging.getLogger(__name__)

CONFIG_FILE = "config.json"


@dataclass
class TrainResult:
    folder: Path
    steps: int
    seconds: float
    start_eval: dict[str, float] | None
    final_eval: dict[str, float] | None
    status: str  # finished | interrupted | no_signal (resample_limit rounds in a row had nothing to learn from)
    figures: dict[str, Any] = field(default_factory=dict)


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=repr))
    os.replace(tmp, path)


def _check_folder(config: TrainConfig, folder: Path, resume: bool) -> None:
    """Refuse a folder that holds another run, or a resume whose settings differ; writes nothing."""
    stored_path = folder / CONFIG_FILE
    if resume:
        if not stored_path.exists():
            raise CuaError(f"{folder} holds no run to resume (no {CONFIG_FILE}); start one without --resume")
        stored = TrainConfig.from_dict(json.loads(stored_path.read_text()))
        changed = config.differences(stored)
        if changed:
            raise CuaError(
                f"--resume {folder}: settings differ from the stored run ({'; '.join(changed)}); "
                "resume with the stored settings, or start a new run folder"
            )
    elif stored_path.exists():
        raise CuaError(f"{folder} holds a run already: pass --resume to continue it, or pick a new output folder")


class _Rollouts:
    """The rollout thread: answers the loader's turns with the rollout policy, files groups."""

    def __init__(
        self,
        loader: Any,
        policy: Policy,
        buffer: Any,
        lock: threading.Lock,
        recorders: list[Callable[[Group], None]],
        *,
        lockstep: bool = False,
    ) -> None:
        self.loader, self.policy, self.buffer, self.lock = loader, policy, buffer, lock
        self.recorders = recorders  # told of each played group (the curriculum, the task sampler)
        self.policy_lock = threading.Lock()
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.env_steps = 0
        # lockstep: groups the trainer asked for and not yet filed (changed under ``lock``, with the buffer)
        self.owed: int | None = 0 if lockstep else None
        self.thread = threading.Thread(target=self._run, name="rollouts", daemon=True)

    def ask(self, groups: int) -> None:
        """Lockstep: play ``groups`` more groups with the weights published now. Call it holding ``lock``."""
        if self.owed is not None:
            self.owed += groups

    def _await_owed(self) -> None:
        """Lockstep: answer no turn while no group is owed (the groups that ended were filed first)."""
        while self.owed is not None and not self.stop.is_set():
            with self.lock:
                if self.owed > 0:
                    return
            time.sleep(0.005)

    def _file(self) -> None:
        groups = self.loader.pop_groups()
        for group in groups:
            for record in self.recorders:
                record(group)
        if groups:
            with self.lock:
                for group in groups:
                    self.buffer.add(group)
                if self.owed is not None:
                    self.owed -= len(groups)

    def _run(self) -> None:
        try:
            for batch in self.loader.batches(max_batch=64):
                # A group's last episode is filed before the next episode asks its first turn, so what ended
                # is counted before a new group's turn is answered: lockstep then starts no group unasked.
                self._file()
                self._await_owed()
                if self.stop.is_set():
                    break
                with self.policy_lock:
                    decisions = self.policy.act(batch.turns)
                    version = self.policy.version
                batch.respond(decisions, version=version)
                self.env_steps += len(decisions)
                self._file()
        except BaseException as exc:  # handed to the main thread, which raises it
            self.error = exc
            self.stop.set()

    def publish(self, weights: dict[str, Any], version: int) -> None:
        with self.policy_lock:
            self.policy.load_published(weights, version)


def train(
    config: TrainConfig,
    folder: Path,
    *,
    resume: bool = False,
    on_step: Callable[[dict[str, Any]], None] | None = None,
    publisher: Callable[[Policy, int], None] | None = None,
) -> TrainResult:
    """Train ``config`` into ``folder`` (resuming the run there with ``resume``).

    ``publisher(policy, version)``, when given, is also called after each step (e.g. a trainer
    plugin's ServerPublisher pushing weights to an OpenAI-compatible server); the in-process rollout
    copy is always updated.
    """
    run = _open_run(config, folder, resume, started=time.monotonic())
    with contextlib.ExitStack() as stack:
        stack.callback(run.bus.close)
        rollouts = _start_rollouts(run, stack)
        status = _loop(run, rollouts, on_step, publisher)
        rollouts.stop.set()
        if rollouts.error is not None:
            raise CuaError(f"rollouts failed: {rollouts.error}") from rollouts.error
        if status != "no_signal" and (run.trainer.step >= run.config.steps or run.deadline is not None):
            status = "finished"
        seconds = _finish(run, status)
    return _summarise(run, status, seconds)


@dataclass
class _Run:
    """What the steps of one ``train`` call share: the settings, the models, the run folder's parts."""

    config: TrainConfig
    folder: Path
    started: float  # time.monotonic() when train was called
    train_refs: list[EpisodeSpec]
    eval_refs: list[EpisodeSpec]
    policy: Policy  # the trained copy
    rollout_policy: Policy  # the copy the rollout thread plays, updated after each step
    trainer: Trainer
    curve: CurveLog
    buffer: Any  # a ReplayBuffer
    bus: BestEffortPublisher
    buffer_lock: threading.Lock = field(default_factory=threading.Lock)
    faults: dict[str, int] = field(default_factory=lambda: {"replaced": 0, "retried": 0, "dropped": 0})
    eval_workers: Any = None  # EnvWorkers, once started
    curriculum: Curriculum | None = None  # the loader's, once started
    start_eval: dict[str, float] | None = None
    final_eval: dict[str, float] | None = None
    figures: dict[str, Any] = field(default_factory=dict)  # the last step's curve row

    @property
    def deadline(self) -> float | None:
        return self.started + self.config.minutes * 60 if self.config.minutes else None

    def minutes(self) -> float:
        return (time.monotonic() - self.started) / 60

    def held_out(self) -> dict[str, float]:
        """The greedy held-out figures, at the episode limit trained with (another limit: another task)."""
        from cua_bench_rl.loader import evaluate

        figures = evaluate(
            self.eval_workers, self.policy, self.eval_refs, greedy=True, max_steps=self.config.max_steps, bus=self.bus
        )
        return dict(figures)

    def on_fault(self, index: int, reason: str, outcome: str) -> None:
        """``RolloutLoader.on_fault``: an env worker was replaced; counted, and told to the bus."""
        faults = self.faults
        faults["replaced"] += 1
        if outcome in ("retried", "dropped"):
            faults[outcome] += 1
        self.bus.publish(
            events.WORKER_REPLACED,
            {
                "worker": index, "reason": reason, "outcome": outcome, "episodes_retried": faults["retried"],
                "episodes_dropped": faults["dropped"], "replaced": faults["replaced"],
            },
        )  # fmt: skip


def _open_run(config: TrainConfig, folder: Path, resume: bool, started: float) -> _Run:
    """Check every setting, build policy and trainer, then (only then: a refused setting must not leave a run
    folder behind that a corrected command would refuse as "holds a run already") write the run folder's
    settings and marker and restore the newest checkpoint, the curve and the buffer."""
    config = check_settings(config)
    _check_folder(config, folder, resume)
    train_refs = config.episodes(config.train_split, config.train_variants)
    eval_refs = config.episodes(config.eval_split, config.eval_episodes)
    run_id = f"rl-{uuid.uuid4().hex[:8]}"
    _seed_everything(config.seed)
    policy = build_policy(config)
    trainer = build_trainer(config, policy)
    folder.mkdir(parents=True, exist_ok=True)
    _write_json(folder / CONFIG_FILE, config.to_dict())
    write_run_marker(folder, run_id, "rl")
    checkpoint = newest_checkpoint(folder / "checkpoints") if resume else None
    if checkpoint is not None:
        trainer.load(checkpoint[0])
        log.info("resumed from %s (step %d)", checkpoint[0], trainer.step)
    elif resume:
        log.warning("%s has no checkpoint yet: starting from step 0", folder)
    policy.version = trainer.step
    rollout_policy = copy.deepcopy(policy)
    rollout_policy.load_published(policy.state_dict_for_publish(), trainer.step)
    curve = CurveLog(folder / "curve.csv", keep_until=trainer.step)
    buffer = _open_buffer(config, folder / "buffer", resume, trainer.step)
    bus = BestEffortPublisher(run_id, check=events.check_bus)
    return _Run(config, folder, started, train_refs, eval_refs, policy, rollout_policy, trainer, curve, buffer, bus)


def _open_buffer(config: TrainConfig, folder: Path, resume: bool, step: int) -> Any:
    """The replay buffer: the run's own on resume, less groups played by weights newer than ``step``."""
    from cua_bench_rl.buffer import ReplayBuffer

    capacity = {"capacity": config.buffer_capacity, "max_staleness": config.max_staleness, "seed": config.seed}
    if not (resume and folder.exists()):
        return ReplayBuffer(folder=folder, **capacity)
    buffer = ReplayBuffer.load(folder, **capacity)
    if ahead := buffer.drop_ahead_of(step):
        log.info("resume: %d buffered groups were played by weights newer than the checkpoint; dropped", ahead)
    return buffer


@contextlib.contextmanager
def _variables(values: dict[str, str]) -> Iterator[None]:
    """``values`` set in this process's environment while the run's workers live, as they were after: the
    backend and the placements read their options there, for the env servers they start."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _start_rollouts(run: _Run, stack: contextlib.ExitStack) -> _Rollouts:
    """Start the env workers (rollouts, held-out), evaluate before training (a fresh run), then the loader
    and the rollout thread; ``stack`` stops them all."""
    from cua_bench.placement import place
    from cua_bench_rl.loader import RolloutLoader
    from cua_bench_rl.workers import EnvWorkers

    config, trainer, bus = run.config, run.trainer, run.bus
    stack.enter_context(_variables(config.backend_env()))  # replacements, provisioned later, read them too
    backend = place(config.backend, config.placement)
    workers = stack.enter_context(EnvWorkers(backend, config.workers, on_closed=_closed(bus, "w")).start())
    run.eval_workers = stack.enter_context(
        EnvWorkers(backend, config.eval_workers, on_closed=_closed(bus, "e")).start()
    )
    bus.publish(
        events.RUN_STARTED,
        {
            "folder": str(run.folder.resolve()), "trainer": config.trainer, "policy": config.policy,
            "tasks": len(run.train_refs), "group_size": config.group_size, "workers": config.workers,
            "step": trainer.step,
        },
    )  # fmt: skip
    if trainer.step == 0:
        run.start_eval = run.held_out()
        log.info("held-out before training: %s", run.start_eval)
        run.curve.add({"step": 0, "minutes": run.minutes(), "policy_version": 0,
                       "eval_success": run.start_eval["success"], "eval_reward": run.start_eval["reward"]})  # fmt: skip
    curriculum = None
    if config.curriculum_start > 0:
        curriculum = Curriculum(config.curriculum_start, config.curriculum_steps, lambda: trainer.step, config.seed)
    run.curriculum = curriculum
    sampler = None
    if config.task_sampling == "difficulty":
        sampler = DifficultySampler(run.train_refs)
    elif config.task_sampling == "variant-difficulty":
        # A variant is played a group at a time, and the policy moves: its last two groups say where
        # the policy stands on it now.
        sampler = DifficultySampler(run.train_refs, per="variant", window=2)
    loader = RolloutLoader(
        workers,
        run.train_refs if sampler is None else sampler,
        group_size=config.group_size,
        observes=run.policy.observes,
        max_steps=config.max_steps,
        curriculum=curriculum,
        seed=config.seed + trainer.step,
        on_fault=run.on_fault,
        bus=bus,
    )
    stack.enter_context(loader)
    recorders: list[Callable[[Group], None]] = [r.record for r in (curriculum, sampler) if r is not None]
    rollouts = _Rollouts(loader, run.rollout_policy, run.buffer, run.buffer_lock, recorders, lockstep=config.lockstep)
    rollouts.thread.start()
    stack.callback(rollouts.stop.set)
    return rollouts


def _loop(
    run: _Run,
    rollouts: _Rollouts,
    on_step: Callable[[dict[str, Any]], None] | None,
    publisher: Callable[[Policy, int], None] | None,
) -> str:
    """Optimiser steps until ``steps``, the deadline, or ``resample_limit`` rounds in a row with nothing to
    learn from; returns ``"no_signal"`` for the last, else ``"interrupted"`` (``train`` decides finished)."""
    config, trainer, policy = run.config, run.trainer, run.policy
    last = (time.monotonic(), 0)  # when the previous step ended, and the env steps played by then
    barren = 0  # rounds in a row that found no group to learn from
    deadline = run.deadline
    while trainer.step < config.steps and (deadline is None or time.monotonic() < deadline):
        drawn = _wait_for_groups(
            run.buffer, run.buffer_lock, config, trainer.step, rollouts, deadline, trainer.informative
        )
        if drawn is None:
            break
        groups, replaced = drawn
        if replaced:
            log.info("step %d: %d group(s) with nothing to learn (every episode alike) replaced by new ones",
                     trainer.step + 1, replaced)  # fmt: skip
        before = trainer.step
        step_figures = trainer.train_step(groups) if groups else {}
        if trainer.step == before:  # no optimiser step: no new version, no curve row
            barren += 1
            log.warning("no optimiser step (%d groups drawn, none to learn from); %d such round(s) in a row",
                        replaced + len(groups), barren)  # fmt: skip
            if barren >= config.resample_limit:
                return "no_signal"
            continue
        barren = 0
        weights = policy.state_dict_for_publish()
        policy.version = trainer.step
        rollouts.publish(weights, trainer.step)
        if publisher is not None:
            publisher(policy, trainer.step)
        now = time.monotonic()
        row = _step_row(run, groups, step_figures, replaced, (rollouts.env_steps - last[1]) / max(1e-9, now - last[0]))
        last = (now, rollouts.env_steps)
        _after_step(run, row, on_step)
    return "interrupted"


def _step_row(
    run: _Run, groups: list[Group], step_figures: dict[str, float], replaced: int, steps_per_s: float
) -> dict[str, Any]:
    """The curve's row for the step just taken (``steps_per_s``: env steps per second since the last one)."""
    step = run.trainer.step
    rewards = [r for g in groups for r in g.rewards]
    return {
        "step": step,
        "minutes": run.minutes(),
        "reward_mean": sum(rewards) / len(rewards),
        "reward_std": _std(rewards),
        "success": sum(r >= 1.0 for r in rewards) / len(rewards),
        "loss": float(step_figures.get("loss", 0.0)),
        "kl": float(step_figures.get("kl", 0.0)),
        "clip_fraction": float(step_figures.get("clip_fraction", 0.0)),
        "policy_version": step,
        "steps_per_s": steps_per_s,
        "episodes": len(rewards),
        "buffer_size": len(run.buffer),
        # drawn and left out: replaced before the step, or dropped by the trainer in it
        "groups_dropped": int(step_figures.get("groups_dropped", 0)) + replaced,
        "stale_dropped": int(run.buffer.stats.get("evicted_stale", 0)),
    }


def _after_step(run: _Run, row: dict[str, Any], on_step: Callable[[dict[str, Any]], None] | None) -> None:
    """The cadences after a step: held-out evaluation every ``eval_every`` steps, the curve, the bus, the
    caller's ``on_step``, the log, and a checkpoint every ``checkpoint_every`` steps."""
    config, step = run.config, run.trainer.step
    if config.eval_every and step % config.eval_every == 0:
        held = run.held_out()
        row["eval_success"], row["eval_reward"] = held["success"], held["reward"]
    run.curve.add(row)
    run.bus.publish(events.STEP_DONE, {k: row[k] for k in events.StepDone._fields if k != "run"})
    if on_step is not None:
        on_step(row)
    curriculum = run.curriculum
    log.info(
        "step %d: reward %.3f success %.3f loss %.4f (%.1f env steps/s)%s",
        step, row["reward_mean"], row["success"], row["loss"], row["steps_per_s"],
        "" if curriculum is None else f"; curriculum: {curriculum.describe()}",
    )  # fmt: skip
    if step % config.checkpoint_every == 0:
        _checkpoint(run.folder, run.trainer, config)
    run.figures = row


def _finish(run: _Run, status: str) -> float:
    """The last checkpoint, the model folder, the final held-out evaluation (greedy, and sampled) and its curve
    row, and ``run.finished`` on the bus; returns the run's seconds."""
    from cua_bench_rl.loader import evaluate

    config, trainer = run.config, run.trainer
    _checkpoint(run.folder, trainer, config)
    write_model = getattr(trainer.policy, "write_model_folder", None)
    if callable(write_model):  # a model a transformers loader reads: the hf agent can evaluate it
        log.info("the trained model: %s (cua-bench run --agent hf --model it)", write_model(run.folder / "model"))
    final = run.final_eval = run.held_out()
    # Beside the greedy score, the policy as it is trained and played: sampling. A greedy argmax can
    # be right long before the distribution is (the held-out figure alone would hide that).
    final["sampled_success"] = evaluate(
        run.eval_workers, run.policy, run.eval_refs, greedy=False, max_steps=config.max_steps, bus=run.bus
    )["success"]
    run.curve.add({"step": trainer.step, "minutes": run.minutes(), "policy_version": trainer.step,
                   "eval_success": final["success"], "eval_reward": final["reward"]})  # fmt: skip
    seconds = time.monotonic() - run.started
    run.bus.publish(
        events.RUN_FINISHED,
        {
            "steps": trainer.step,
            "seconds": seconds,
            "reward_mean": float(run.figures.get("reward_mean", 0.0)),
            "eval_success": final["success"],
            "status": status,
        },
    )
    return seconds


def _summarise(run: _Run, status: str, seconds: float) -> TrainResult:
    """``curve.png`` and ``summary.json``, and the result."""
    config, steps = run.config, run.trainer.step
    draw_curves(run.curve.rows, run.folder / "curve.png", title=f"{config.env} {config.policy} ({config.trainer})")
    summary = {
        "steps": steps,
        "seconds": round(seconds, 2),
        "status": status,
        "start_eval": run.start_eval,
        "final_eval": run.final_eval,
        "last_step": run.figures,
        "faults": run.faults,
        "buffer": dict(run.buffer.stats),
    }
    _write_json(run.folder / "summary.json", summary)
    return TrainResult(run.folder, steps, seconds, run.start_eval, run.final_eval, status, run.figures)


def _wait_for_groups(
    buffer: Any,
    lock: threading.Lock,
    config: TrainConfig,
    version: int,
    rollouts: _Rollouts,
    deadline: float | None,
    informative: Callable[[Group], bool],
) -> tuple[list[Group], int] | None:
    """(``groups_per_step`` groups within the staleness bound that ``informative`` keeps, the number set
    aside and replaced), or fewer once ``groups_per_step * resample_limit`` have been drawn; None when
    the run must stop.

    The version cannot change while this waits (only the caller publishes), so groups gathered over
    several polls stay within the bound."""
    gathered: list[Group] = []
    set_aside = 0
    limit = config.groups_per_step * config.resample_limit
    while True:
        if rollouts.error is not None:
            raise CuaError(f"rollouts failed: {rollouts.error}") from rollouts.error
        with lock:
            wanted = min(config.groups_per_step - len(gathered), limit - len(gathered) - set_aside)
            for group in buffer.sample(wanted, version=version, on_policy=config.on_policy):
                if informative(group):
                    gathered.append(group)
                else:
                    set_aside += 1
            # Lockstep: the groups still wanted, less those asked for and not yet filed (a group filed and then
            # dropped as stale is wanted again); read with the buffer, under one lock, so none counts twice.
            short = min(config.groups_per_step - len(gathered), limit - len(gathered) - set_aside)
            if rollouts.owed is not None and short > rollouts.owed:
                rollouts.ask(short - rollouts.owed)
        if len(gathered) >= config.groups_per_step or len(gathered) + set_aside >= limit:
            return gathered, set_aside
        if deadline is not None and time.monotonic() >= deadline:
            return None
        time.sleep(0.01)


def _closed(bus: BestEffortPublisher, prefix: str) -> Callable[[int], None]:
    """``env.closed`` for env worker ``<prefix><index>``, as ``EnvWorkers.on_closed``."""
    return lambda index: bus.publish(ENV_CLOSED, {"env": f"{prefix}{index}"})


def _checkpoint(folder: Path, trainer: Trainer, config: TrainConfig) -> None:
    save_checkpoint(
        folder / "checkpoints",
        trainer.step,
        trainer.save,
        {"version": trainer.step, "config": config.to_dict()},
        keep=config.keep_checkpoints,
    )


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    with contextlib.suppress(ImportError):
        import torch

        torch.manual_seed(seed)


def _std(values: list[float]) -> float:
    return statistics.pstdev(values)
