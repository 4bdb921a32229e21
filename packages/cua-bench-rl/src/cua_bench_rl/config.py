"""A training run's settings: one dataclass, filled from a config file and the command line.

``config.json`` in the run folder holds them; ``--resume`` refuses when a setting that changes
what is trained differs from the stored one, naming it (a run whose curve mixes two settings is a
silently wrong result). Settings that only change how long or how often (``minutes``, ``steps``,
``eval_every``, ``checkpoint_every``) may change on resume.
"""

from __future__ import annotations

import difflib
import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cua_bench import EpisodeSpec
from cua_bench.placement import parse_placement
from cua_core import CuaError, typed_options

__all__ = ["RESUMABLE", "TrainConfig", "full_task_name", "load_config_file", "parse_env"]

log = logging.getLogger(__name__)

# What may differ between a run and its resume: budgets and cadences, not what is trained.
# And where the env workers run: the same episodes score the same on any computer.
RESUMABLE = frozenset(
    {"minutes", "steps", "eval_every", "checkpoint_every", "keep_checkpoints", "eval_episodes", "placement"}
)


def _split_env(text: str) -> tuple[str, list[str]]:
    """``BACKEND:TASK[,TASK...]`` -> (backend, the tasks as written): the shape only, nothing looked up."""
    backend, colon, rest = text.partition(":")
    names = [n.strip() for n in rest.split(",") if n.strip()]
    if not (colon and backend and names):
        raise CuaError(f"--env {text!r}: expected BACKEND:TASK[,TASK...], like sim:click-button or sim:login,fill-form")
    return backend, names


def parse_env(text: str) -> tuple[str, list[str]]:
    """``BACKEND:TASK[,TASK...]`` -> (backend, task names as the env server takes them): each task as
    ``full_task_name`` gives it (``sim:click-button`` is ``sim/click-button`` on the sim backend,
    ``local:xterm-create-file`` is ``desktop/xterm-create-file``; ``local:desktop/xterm-create-file``
    and a task folder's path name themselves)."""
    backend, names = _split_env(text)
    return backend, [full_task_name(n, flag=f"--env {text!r}") for n in names]


def full_task_name(name: str, *, flag: str = "--env") -> str:
    """A task as the env server takes it. One that names its taskset (``sim/click-button``) or is a path
    is itself; a bare name (``click-button``) is the installed taskset's task of that name, looked up
    in cua-bench's taskset registry (the backend plays no part: a taskset is not a backend).

    Raises:
        CuaError: no installed taskset has the task (naming the closest), or several do (naming them:
            give the taskset).
    """
    if "/" in name or "\\" in name or Path(name).exists():
        return name
    from cua_bench.registry import tasksets
    from cua_bench.taskset import task_folders
    from cua_bench.taskset import task_name as short

    found: dict[str, list[str]] = {}
    for taskset in tasksets().names():
        try:
            found[taskset] = [short(folder) for folder in task_folders(taskset)]
        except CuaError as exc:  # a registered taskset whose folder is missing: the others still count
            log.debug("taskset %s not listed: %s", taskset, exc)
    having = [taskset for taskset, names in found.items() if name in names]
    if len(having) == 1:
        return f"{having[0]}/{name}"
    if having:
        raise CuaError(
            f"{flag}: task {name!r} is in several tasksets ({', '.join(having)}): name it with its taskset, "
            f"like {having[0]}/{name}"
        )
    home = {n: taskset for taskset, names in found.items() for n in names}
    close = difflib.get_close_matches(name, list(home), n=1)
    hint = f"; did you mean {home[close[0]]}/{close[0]}?" if close else ""
    raise CuaError(
        f"{flag}: no installed taskset has a task {name!r}{hint} (tasksets: {', '.join(found) or 'none'}; "
        "name a task as TASKSET/TASK or give a task folder's path)"
    )


@dataclass
class TrainConfig:
    env: str = "sim:click-button"  # BACKEND:TASK[,TASK...]
    policy: str = "pixel-click"  # a registered policy (cua-bench-rl list)
    policy_options: dict[str, Any] = field(default_factory=dict)
    trainer: str = "grpo"
    trainer_options: dict[str, Any] = field(default_factory=dict)  # fields of the trainer's Config (grpo: GRPOConfig)
    train_split: str = "train"
    eval_split: str = "test"
    train_variants: int | None = None  # the first K variants of the train split; None: all
    eval_episodes: int = 100  # held-out variants evaluated (the first K of the eval split, per task)
    group_size: int = 8
    groups_per_step: int = 8
    # A group that cannot move the policy (GRPO: every episode scored the same) is replaced by a newly
    # played one, as DAPO's dynamic sampling does: at most groups_per_step * resample_limit groups are
    # drawn per step; a run whose last resample_limit steps found none ends as "no_signal".
    resample_limit: int = 4
    workers: int = 8
    eval_workers: int = 4
    placement: str = "here"  # where env workers run: here, pool[:HOST,...] or ray[:ADDRESS] (cua_bench.placement)
    # Options the backend declares (--backend-option: sim's per_server, docker's memory), set as their
    # variables for the run's env workers wherever they are placed
    backend_options: dict[str, Any] = field(default_factory=dict)
    max_steps: int | None = None  # per episode, trained and evaluated alike; None keeps the task's own
    steps: int = 100  # optimiser steps
    minutes: float | None = None  # wall-clock budget for the whole run (evaluations included)
    max_staleness: int = 1  # policy versions a group may lag behind and still be trained on
    on_policy: bool = True
    # Rollouts play only the groups the next step asks for, with the newest weights, then wait for the step:
    # slower (the environments idle while it trains), and with one worker the same seed gives the same run
    # wherever the workers are placed (several workers still interleave their turns by timing).
    lockstep: bool = False
    buffer_capacity: int = 256
    curriculum_start: int = 0  # at most this many oracle steps before the policy's first turn, at step 0
    curriculum_steps: int = 0  # annealed to none by this optimiser step
    # uniform; difficulty: tasks the policy solves about half the time come most; variant-difficulty:
    # the same per variant, from its last two groups (cua_bench_rl.sampling)
    task_sampling: str = "uniform"
    eval_every: int = 0  # optimiser steps between held-out evaluations (0: only at start and end)
    checkpoint_every: int = 10
    keep_checkpoints: int = 2
    seed: int = 0

    def __post_init__(self) -> None:
        _split_env(self.env)  # its shape; the tasks are looked up when asked for (tasks, episodes)
        for name in (
            "group_size", "groups_per_step", "workers", "eval_workers", "steps", "buffer_capacity", "resample_limit"
        ):  # fmt: skip
            if getattr(self, name) < 1:
                raise CuaError(f"{name} must be at least 1, got {getattr(self, name)}")
        from cua_bench_rl.sampling import SAMPLINGS

        if self.task_sampling not in SAMPLINGS:
            raise CuaError(f"task_sampling must be one of {', '.join(SAMPLINGS)}, got {self.task_sampling!r}")
        if self.group_size < 2:
            raise CuaError(
                f"group_size must be at least 2 (GRPO compares episodes within a group), got {self.group_size}"
            )
        if self.minutes is not None and self.minutes <= 0:
            raise CuaError(f"minutes must be positive, got {self.minutes}")
        parse_placement(self.placement)  # its shape; the placement itself checks WHERE when the run starts
        if self.max_staleness < 0:
            raise CuaError(f"max_staleness must be 0 or more, got {self.max_staleness}")
        if self.lockstep and self.max_staleness != 0:
            raise CuaError(
                f"lockstep plays every group with the newest weights: set max_staleness to 0 (got {self.max_staleness})"
            )

    @property
    def backend(self) -> str:
        return _split_env(self.env)[0]

    @property
    def tasks(self) -> list[str]:
        return parse_env(self.env)[1]

    def episodes(self, split: str, count: int | None) -> list[EpisodeSpec]:
        """The first ``count`` variants (all when None) of each task in ``split``, as cua-bench's resolver
        lists them (``cua_bench.taskset.resolve_episodes``: each task module imported once), each with
        this run's ``max_steps``.

        Raises:
            CuaError: a task that does not exist, lacks the split or has no variant in it.
        """
        from cua_bench.registry import tasksets
        from cua_bench.taskset import resolve_episodes

        registered = set(tasksets().names())
        specs: list[EpisodeSpec] = []
        for name in self.tasks:
            taskset, _, task = name.partition("/")
            by_name = taskset in registered and task and not Path(name).exists()
            try:
                if by_name:
                    found = resolve_episodes(taskset, split, count or None, task, max_steps=self.max_steps)
                else:  # a task folder (or file) on this computer
                    found = resolve_episodes(name, split, count or None, max_steps=self.max_steps)
            except CuaError as exc:
                raise CuaError(f"--env {self.env!r}: {name}: {exc}") from exc
            if not found:
                raise CuaError(f"--env {self.env!r}: {name} has no variants in split {split!r}")
            specs += found
        return list(dict.fromkeys(specs))  # a task named twice is drawn as often as the others

    def check_backend(self) -> None:
        """The backend ``env`` names is installed: an unknown one is named with the known ones, not taken
        for a taskset that then lacks the task. So is the placement (its WHERE is checked when it starts)."""
        from cua_bench.registry import backends, placements

        placement = parse_placement(self.placement)[0]
        if placement not in placements():
            raise CuaError(
                f"--placement {self.placement!r}: unknown placement {placement!r}; installed: "
                f"{', '.join(placements().names())}"
            )

        name = self.backend
        known = backends()
        if name not in known:
            close = difflib.get_close_matches(name, known.names(), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise CuaError(
                f"--env {self.env!r}: unknown backend {name!r}{hint} (known backends: {', '.join(known.names())})"
            )

    def typed_backend_options(self) -> dict[str, Any]:
        """``backend_options`` checked against the options the backend declares, each typed.

        Raises:
            CuaError: a key the backend does not take (naming those it does), or a value of the wrong type.
        """
        from cua_bench.backend_kit.options import check_options
        from cua_bench.registry import backends

        return check_options(backends()[self.backend], self.backend_options, flag="--backend-option")

    def backend_env(self) -> dict[str, str]:
        """``backend_options`` as the variables they stand for: what the run sets for its env workers."""
        from cua_bench.backend_kit.options import options_env
        from cua_bench.registry import backends

        return options_env(backends()[self.backend], self.typed_backend_options())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """From a config file, the command line or a stored run: each key a field, each value of its type."""
        return cls(**typed_options(cls, data, what="setting"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def differences(self, stored: TrainConfig) -> list[str]:
        """Settings that change what is trained and differ from ``stored``: ``name: stored -> now``. Compared as
        ``config.json`` records them: a typed option's tuple (``lora_targets``) equals the list stored."""
        now, before = _recorded(self.to_dict()), _recorded(stored.to_dict())
        return [f"{k}: {before[k]!r} -> {now[k]!r}" for k in now if k not in RESUMABLE and now[k] != before[k]]


def _recorded(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` as ``config.json`` holds them (tuples as lists)."""
    recorded: dict[str, Any] = json.loads(json.dumps(settings, default=repr))
    return recorded


def load_config_file(path: Path) -> dict[str, Any]:
    """A run's settings from YAML or JSON (the keys are TrainConfig's fields)."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise CuaError(f"cannot read the config file {path}: {exc.strerror}") from exc
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise CuaError(f"{path} is not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}") from exc
    if not isinstance(data, dict):
        raise CuaError(f"{path} must hold a mapping of settings (like 'group_size: 8'), not {type(data).__name__}")
    return data


def layered_settings(stored: Path | None, config_file: Path | None, given: dict[str, Any]) -> dict[str, Any]:
    """A command's settings: a stored run's (``--resume``), then ``--config FILE``'s, then the options given."""
    settings: dict[str, Any] = json.loads(stored.read_text()) if stored is not None else {}
    if config_file is not None:
        settings.update(load_config_file(config_file))
    settings.update(given)
    return settings
