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

import ast
import contextlib
import copy
import dataclasses
import dis
import importlib
import importlib.util
import inspect
import json
import logging
import os
import random
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_bench.events import ENV_CLOSED
from cua_bench.run_marker import write_run_marker
from cua_bench_rl import events
from cua_bench_rl.checkpoints import newest_checkpoint, save_checkpoint
from cua_bench_rl.config import TrainConfig
from cua_bench_rl.curriculum import Curriculum
from cua_bench_rl.curves import CurveLog, draw_curves
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Group
from cua_bench_rl.sampling import DifficultySampler
from cua_bench_rl.trainer import Trainer, TrainerConfig
from cua_core.errors import CuaError
from cua_core.events import BestEffortPublisher
from cua_core.options import typed_options

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


def _named(spec: str, registry: Callable[[], Any], *, kind: str, base: type) -> Callable[..., Any]:
    """What ``spec`` names: a registered ``kind``, or ``FILE.py:Class`` / ``module:Class``."""
    from cua_bench.importing import load_named

    if ":" in spec:
        return load_named(spec, flag=f"--{kind}", base=base)
    found = registry()
    if spec not in found:
        raise CuaError(f"no {kind} {spec!r}; installed: {', '.join(sorted(found)) or 'none'}")
    return found[spec]  # type: ignore[no-any-return]


def check_settings(config: TrainConfig) -> TrainConfig:
    """Every setting a user can get wrong, checked before anything slow or lasting, cheapest first: the
    trainer options (typed by TrainerConfig), the backend, the tasks, then the policy's options (typed
    by its constructor: importing it is the first heavy import, torch). Returns ``config`` with its
    options typed, as the run records them (``lr=3e-4`` given as text is the number)."""
    try:
        trainer_options = typed_options(
            TrainerConfig, config.trainer_options, what="trainer option", flag="--trainer-option", complete=False
        )
        TrainerConfig.from_dict(trainer_options)  # its own checks: choices, ranges
    except (TypeError, ValueError, CuaError) as exc:
        raise CuaError(f"trainer options: {exc}") from exc
    config.check_backend()
    for split, count in ((config.train_split, config.train_variants), (config.eval_split, config.eval_episodes)):
        config.episodes(split, count)  # a missing task or split, named
    factory = _named(config.policy, _policies, kind="policy", base=Policy)
    return dataclasses.replace(config, trainer_options=trainer_options, policy_options=_policy_options(factory, config))


def _policies() -> Any:
    from cua_bench_rl.registry import policies

    return policies()


def _policy_options(factory: Callable[..., Any], config: TrainConfig) -> dict[str, Any]:
    label = f"policy {config.policy!r}"
    read = _read_built_by(factory)
    if read is not None:  # names and plain types first, from the source: the class's module imports torch
        typed_options(read, config.policy_options, label=label, flag="--policy-option", complete=False)
    return typed_options(_built_by(factory), config.policy_options, label=label, flag="--policy-option")


def _imported_class(factory: Callable[..., Any]) -> tuple[str, str] | None:
    """``(module, name)`` of the class a lazy factory (``**options`` only) imports and builds, or None."""
    if not inspect.isfunction(factory):
        return None
    params = inspect.signature(factory).parameters.values()
    if not params or any(p.kind is not p.VAR_KEYWORD for p in params):
        return None
    module = None
    for instruction in dis.get_instructions(factory):
        if instruction.opname == "IMPORT_NAME":
            module = str(instruction.argval)
        elif instruction.opname == "IMPORT_FROM" and module is not None:
            return module, str(instruction.argval)
    return None


def _read_built_by(factory: Callable[..., Any]) -> Callable[..., Any] | None:
    """A stand-in with the parameters of the constructor a lazy factory calls, read from its module's
    source without running it (a torch import costs seconds: a misspelt option is refused before it)."""
    found = _imported_class(factory)
    if found is None:
        return None
    try:
        spec = importlib.util.find_spec(found[0])
        origin = spec.origin if spec is not None else None
        tree = ast.parse(Path(origin).read_text()) if origin and origin.endswith(".py") else None
    except (ImportError, ValueError, OSError, SyntaxError):
        return None
    init = next(
        (
            item
            for node in (tree.body if tree is not None else [])
            if isinstance(node, ast.ClassDef) and node.name == found[1]
            for item in node.body
            if isinstance(item, ast.FunctionDef) and item.name == "__init__"
        ),
        None,
    )
    if init is None or init.args.vararg or init.args.kwarg or init.args.posonlyargs:
        return None
    positional = init.args.args[1:]  # after self
    defaults = [None] * (len(positional) - len(init.args.defaults)) + list(init.args.defaults)
    params = [
        inspect.Parameter(
            arg.arg,
            kind,
            default=inspect.Parameter.empty if default is None else ...,
            annotation=ast.unparse(arg.annotation) if arg.annotation is not None else inspect.Parameter.empty,
        )
        for kind, pairs in (
            (inspect.Parameter.POSITIONAL_OR_KEYWORD, zip(positional, defaults, strict=True)),
            (inspect.Parameter.KEYWORD_ONLY, zip(init.args.kwonlyargs, init.args.kw_defaults, strict=True)),
        )
        for arg, default in pairs
    ]

    def stand_in(**options: Any) -> None:
        """Never called: its signature is the constructor's, for ``typed_options``."""

    stand_in.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return stand_in


def _built_by(factory: Callable[..., Any]) -> Callable[..., Any]:
    """What a policy's options are checked against: its factory, or, for a factory that takes only
    ``**options`` and hands them to a class it imports when called (a plugin's lazy factory, which keeps
    torch out of ``cua-bench-rl list``: ``from pkg.mod import C; return C(**options)``), that class, found
    in the factory's code: so a wrong option is refused by name and type before anything is built."""
    found = _imported_class(factory)
    if found is None:
        return factory
    try:
        built = getattr(importlib.import_module(found[0]), found[1], None)
    except ImportError:
        return factory  # calling it fails the same way, and says so
    return built if isinstance(built, type) and issubclass(built, Policy) else factory


def build_policy(config: TrainConfig) -> Policy:
    """The policy ``config.policy`` names, built with its options (checked against its constructor)."""
    factory = _named(config.policy, _policies, kind="policy", base=Policy)
    policy = factory(**_policy_options(factory, config))
    if not isinstance(policy, Policy):
        raise CuaError(f"policy {config.policy!r} built a {type(policy).__name__}, not a cua_bench_rl Policy")
    return policy


def build_trainer(config: TrainConfig, policy: Policy) -> Trainer:
    """The trainer ``config.trainer`` names (registered, or ``FILE.py:Class``) on ``policy``."""
    from cua_bench_rl.registry import trainers

    trainer_class = _named(config.trainer, trainers, kind="trainer", base=Trainer)
    try:
        options = TrainerConfig.from_dict(config.trainer_options)
    except (TypeError, ValueError, CuaError) as exc:
        raise CuaError(f"trainer options: {exc}") from exc
    trainer = trainer_class(policy, options)  # a trainer makes its own KL reference (LoRA: the adapter off)
    if not isinstance(trainer, Trainer):
        raise CuaError(f"trainer {config.trainer!r} built a {type(trainer).__name__}, not a cua_bench_rl Trainer")
    return trainer


class _Rollouts:
    """The rollout thread: answers the loader's turns with the rollout policy, files groups."""

    def __init__(
        self, loader: Any, policy: Policy, buffer: Any, lock: threading.Lock, recorders: list[Callable[[Group], None]]
    ) -> None:
        self.loader, self.policy, self.buffer, self.lock = loader, policy, buffer, lock
        self.recorders = recorders  # told of each played group (the curriculum, the task sampler)
        self.policy_lock = threading.Lock()
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.env_steps = 0
        self.thread = threading.Thread(target=self._run, name="rollouts", daemon=True)

    def _run(self) -> None:
        try:
            for batch in self.loader.batches(max_batch=64):
                if self.stop.is_set():
                    break
                with self.policy_lock:
                    decisions = self.policy.act(batch.turns)
                    version = self.policy.version
                batch.respond(decisions, version=version)
                self.env_steps += len(decisions)
                groups = self.loader.pop_groups()
                for group in groups:
                    for record in self.recorders:
                        record(group)
                if groups:
                    with self.lock:
                        for group in groups:
                            self.buffer.add(group)
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
    from cua_bench_rl.buffer import ReplayBuffer
    from cua_bench_rl.loader import RolloutLoader, evaluate
    from cua_bench_rl.workers import EnvWorkers

    started = time.monotonic()
    config = check_settings(config)
    _check_folder(config, folder, resume)
    train_refs = config.episodes(config.train_split, config.train_variants)
    eval_refs = config.episodes(config.eval_split, config.eval_episodes)
    deadline = started + config.minutes * 60 if config.minutes else None
    run_id = f"rl-{uuid.uuid4().hex[:8]}"

    _seed_everything(config.seed)
    policy = build_policy(config)
    trainer = build_trainer(config, policy)
    # Only now, once policy and trainer exist: a refused setting must not leave a run folder behind
    # that a corrected command would then refuse as "holds a run already".
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

    buffer_folder = folder / "buffer"
    capacity = {"capacity": config.buffer_capacity, "max_staleness": config.max_staleness, "seed": config.seed}
    if resume and buffer_folder.exists():
        buffer = ReplayBuffer.load(buffer_folder, **capacity)
        if ahead := buffer.drop_ahead_of(trainer.step):
            log.info("resume: %d buffered groups were played by weights newer than the checkpoint; dropped", ahead)
    else:
        buffer = ReplayBuffer(folder=buffer_folder, **capacity)
    buffer_lock = threading.Lock()

    bus = BestEffortPublisher(run_id, check=events.check_bus)
    faults = {"replaced": 0, "retried": 0, "dropped": 0}

    def on_fault(index: int, reason: str, outcome: str) -> None:
        faults["replaced"] += 1
        if outcome in ("retried", "dropped"):
            faults[outcome] += 1
        bus.publish(
            events.WORKER_REPLACED,
            {
                "worker": index, "reason": reason, "outcome": outcome, "episodes_retried": faults["retried"],
                "episodes_dropped": faults["dropped"], "replaced": faults["replaced"],
            },
        )  # fmt: skip

    figures: dict[str, Any] = {}
    start_eval = final_eval = None
    status = "interrupted"
    with contextlib.ExitStack() as stack:
        stack.callback(bus.close)
        workers = stack.enter_context(EnvWorkers(config.backend, config.workers, on_closed=_closed(bus, "w")).start())
        eval_workers = stack.enter_context(
            EnvWorkers(config.backend, config.eval_workers, on_closed=_closed(bus, "e")).start()
        )
        bus.publish(
            events.RUN_STARTED,
            {
                "folder": str(folder.resolve()), "trainer": config.trainer, "policy": config.policy,
                "tasks": len(train_refs), "group_size": config.group_size, "workers": config.workers,
                "step": trainer.step,
            },
        )  # fmt: skip

        def held_out() -> dict[str, float]:
            # the episode limit trained with: a held-out figure at another limit would be another task's
            return dict(evaluate(eval_workers, policy, eval_refs, greedy=True, max_steps=config.max_steps, bus=bus))

        if trainer.step == 0:
            start_eval = held_out()
            log.info("held-out before training: %s", start_eval)
            curve.add({"step": 0, "minutes": _minutes(started), "policy_version": 0,
                       "eval_success": start_eval["success"], "eval_reward": start_eval["reward"]})  # fmt: skip

        curriculum = None
        if config.curriculum_start > 0:
            curriculum = Curriculum(config.curriculum_start, config.curriculum_steps, lambda: trainer.step, config.seed)
        sampler = None
        if config.task_sampling == "difficulty":
            sampler = DifficultySampler(train_refs)
        elif config.task_sampling == "variant-difficulty":
            # A variant is played a group at a time, and the policy moves: its last two groups say where
            # the policy stands on it now.
            sampler = DifficultySampler(train_refs, per="variant", window=2)
        loader = RolloutLoader(
            workers,
            train_refs if sampler is None else sampler,
            group_size=config.group_size,
            observes=policy.observes,
            max_steps=config.max_steps,
            curriculum=curriculum,
            seed=config.seed + trainer.step,
            on_fault=on_fault,
            bus=bus,
        )
        stack.enter_context(loader)
        recorders: list[Callable[[Group], None]] = [r.record for r in (curriculum, sampler) if r is not None]
        rollouts = _Rollouts(loader, rollout_policy, buffer, buffer_lock, recorders)
        rollouts.thread.start()
        stack.callback(rollouts.stop.set)
        last_time, last_steps = time.monotonic(), 0
        barren = 0  # rounds in a row that found no group to learn from
        while trainer.step < config.steps and (deadline is None or time.monotonic() < deadline):
            drawn = _wait_for_groups(buffer, buffer_lock, config, trainer.step, rollouts, deadline, trainer.informative)
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
                    status = "no_signal"
                    break
                continue
            barren = 0
            weights = policy.state_dict_for_publish()
            policy.version = trainer.step
            rollouts.publish(weights, trainer.step)
            if publisher is not None:
                publisher(policy, trainer.step)
            now = time.monotonic()
            rewards = [r for g in groups for r in g.rewards]
            row = {
                "step": trainer.step,
                "minutes": _minutes(started),
                "reward_mean": sum(rewards) / len(rewards),
                "reward_std": _std(rewards),
                "success": sum(r >= 1.0 for r in rewards) / len(rewards),
                "loss": float(step_figures.get("loss", 0.0)),
                "kl": float(step_figures.get("kl", 0.0)),
                "clip_fraction": float(step_figures.get("clip_fraction", 0.0)),
                "policy_version": trainer.step,
                "steps_per_s": (rollouts.env_steps - last_steps) / max(1e-9, now - last_time),
                "episodes": len(rewards),
                "buffer_size": len(buffer),
                # drawn and left out: replaced before the step, or dropped by the trainer in it
                "groups_dropped": int(step_figures.get("groups_dropped", 0)) + replaced,
                "stale_dropped": int(buffer.stats.get("evicted_stale", 0)),
            }
            last_time, last_steps = now, rollouts.env_steps
            if config.eval_every and trainer.step % config.eval_every == 0:
                held = held_out()
                row["eval_success"], row["eval_reward"] = held["success"], held["reward"]
            curve.add(row)
            bus.publish(events.STEP_DONE, {k: row[k] for k in events.StepDone._fields if k != "run"})
            if on_step is not None:
                on_step(row)
            log.info(
                "step %d: reward %.3f success %.3f loss %.4f (%.1f env steps/s)%s",
                trainer.step, row["reward_mean"], row["success"], row["loss"], row["steps_per_s"],
                "" if curriculum is None else f"; curriculum: {curriculum.describe()}",
            )  # fmt: skip
            if trainer.step % config.checkpoint_every == 0:
                _checkpoint(folder, trainer, config)
            figures = row
        rollouts.stop.set()
        if rollouts.error is not None:
            raise CuaError(f"rollouts failed: {rollouts.error}") from rollouts.error
        if status != "no_signal" and (trainer.step >= config.steps or deadline is not None):
            status = "finished"
        _checkpoint(folder, trainer, config)
        write_model = getattr(trainer.policy, "write_model_folder", None)
        if callable(write_model):  # a model a transformers loader reads: the hf agent can evaluate it
            log.info("the trained model: %s (cua-bench run --agent hf --model it)", write_model(folder / "model"))
        final_eval = held_out()
        # Beside the greedy score, the policy as it is trained and played: sampling. A greedy argmax can
        # be right long before the distribution is (the held-out figure alone would hide that).
        final_eval["sampled_success"] = evaluate(
            eval_workers, policy, eval_refs, greedy=False, max_steps=config.max_steps, bus=bus
        )["success"]
        curve.add({"step": trainer.step, "minutes": _minutes(started), "policy_version": trainer.step,
                   "eval_success": final_eval["success"], "eval_reward": final_eval["reward"]})  # fmt: skip
        seconds = time.monotonic() - started
        bus.publish(
            events.RUN_FINISHED,
            {
                "steps": trainer.step,
                "seconds": seconds,
                "reward_mean": float(figures.get("reward_mean", 0.0)),
                "eval_success": final_eval["success"],
                "status": status,
            },
        )
    draw_curves(curve.rows, folder / "curve.png", title=f"{config.env} {config.policy} ({config.trainer})")
    summary = {
        "steps": trainer.step,
        "seconds": round(seconds, 2),
        "status": status,
        "start_eval": start_eval,
        "final_eval": final_eval,
        "last_step": figures,
        "faults": faults,
        "buffer": dict(buffer.stats),
    }
    _write_json(folder / "summary.json", summary)
    return TrainResult(folder, trainer.step, seconds, start_eval, final_eval, status, figures)


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
            drawn = buffer.sample(wanted, version=version, on_policy=config.on_policy)
        for group in drawn:
            if informative(group):
                gathered.append(group)
            else:
                set_aside += 1
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


def _minutes(started: float) -> float:
    return (time.monotonic() - started) / 60


def _std(values: list[float]) -> float:
    return statistics.pstdev(values)
