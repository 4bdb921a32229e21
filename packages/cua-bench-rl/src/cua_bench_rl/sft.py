"""Supervised fine-tuning on LiteSample data: the contract the SFT trainers (ddp, mlx, trl) implement.

One entry point, :func:`run_sft` (``cua-bench-rl sft``), and trainers as plugins (hook
``cua_bench_rl_register_sft_trainers``). What every trainer shares lives here, so a figure from one
is comparable with another's: the examples (the adapter's own prompts over a dataset's
trajectories, exactly what the agent renders at run time), which micro-batches a rank trains on at
a step (a pure function of seed, step and rank, so a resumed run continues the same stream without
keeping sampler state), and what a step and a run report.
"""

from __future__ import annotations

import dataclasses
import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from cua_bench_rl.checkpoints import Checkpoints, checkpoints_in
from cua_bench_rl.world import World
from cua_core import CuaError, typed_options
from cua_data import Prompt, PromptSettings

__all__ = [
    "Example",
    "NoOptions",
    "SFTConfig",
    "SFTResult",
    "SFTStep",
    "SFTTrainer",
    "check_resumable",
    "check_same_start",
    "load_examples",
    "micro_batches",
    "oracle_dataset",
    "preflight",
    "run_sft",
    "typed_trainer_options",
]

Example = tuple[Prompt, str]
"""(what the agent's adapter renders at that step, what the model should have written)."""


@dataclass
class SFTConfig:
    """Every knob of an SFT run; ``options`` holds a trainer's own (``--trainer-option k=v``), the fields of
    its :attr:`SFTTrainer.Options` (typed by them once checked: :func:`preflight`).

    Every trainer optimises with AdamW at a constant ``lr``, no weight decay and no warm-up, so that
    one setting means the same run whichever trainer runs it.
    """

    data: str  # a LiteSample dataset folder, or a ``cua-bench run`` folder (its trajectories/)
    model: str  # a checkpoint folder in transformers' layout (config.json, weights, tokenizer)
    trainer: str = "ddp"
    adapter: str = "qwen2.5-vl"
    output: str = "runs/sft"  # the trained model in OUTPUT/model; checkpoints here too outside a pool job
    steps: int = 20  # optimiser steps (each: grad_accumulation micro-batches per rank)
    lr: float = 1e-3
    micro_batch: int = 2
    # Micro-batches per optimiser step: gradients cross the network once per step, so on a slow
    # link a larger k trades update frequency for time spent computing instead of waiting.
    grad_accumulation: int = 1
    lora: bool = True
    lora_rank: int = 8
    lora_alpha: int = 16
    lora_targets: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")
    history: int = 2  # past turns the adapter keeps in each prompt
    max_length: int | None = None
    checkpoint_every: int = 5
    seed: int = 0
    threads: int | None = None  # compute threads per rank (None: the framework's default)
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("steps", "micro_batch", "grad_accumulation", "lora_rank", "checkpoint_every", "history"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < (0 if name == "history" else 1):
                raise CuaError(f"sft: {name} must be a positive integer, got {value!r}")
        if not self.lr > 0:
            raise CuaError(f"sft: lr must be positive, got {self.lr!r}")
        if self.threads is not None and self.threads < 1:
            raise CuaError(f"sft: threads must be at least 1, got {self.threads!r}")
        self.lora_targets = tuple(self.lora_targets)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SFTConfig:
        data = typed_options(cls, data, label="sft", what="setting", complete=False)  # missing ones: below
        missing = [name for name in ("data", "model") if not data.get(name)]
        if missing:
            raise CuaError(f"sft: {' and '.join(missing)} must be given (--{' and --'.join(missing)})")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["lora_targets"] = list(self.lora_targets)
        return data

    def prompt_settings(self) -> PromptSettings:
        """What the training prompts are rendered with, recorded beside the weights for evaluation."""
        return PromptSettings(self.adapter, f"last={self.history}")

    def checkpoint_due(self, done: int) -> bool:
        """Whether rank 0 saves after ``done`` steps: every ``checkpoint_every`` and at the last."""
        return done % self.checkpoint_every == 0 or done == self.steps


@dataclass(frozen=True)
class SFTStep:
    """One optimiser step as rank 0 reports it. ``tokens``: the non-padding tokens trained on, every
    rank's where the trainer knows them without another exchange (mlx, trl), else rank 0's (ddp, which
    adds no collective to a step); :class:`SFTResult` always counts every rank's."""

    step: int
    loss: float
    tokens: int
    seconds: float


@dataclass
class SFTResult:
    trainer: str
    world_size: int
    start_step: int  # 0, or the checkpoint's step this run resumed from
    steps: int  # the step the run ended at
    losses: list[float]  # one per step this run trained
    tokens: int  # every rank's, this run
    seconds: float  # wall time of this run's steps
    exchanges: int  # gradient exchanges (all-reduces of the gradients) this run
    adapter: str | None  # where rank 0 wrote the final weights (adapter, or full model)
    config: dict[str, Any]

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tokens_per_s": self.tokens_per_s}


@dataclass(frozen=True)
class NoOptions:
    """The ``Options`` of an SFT trainer that takes no ``--trainer-option``."""


class SFTTrainer(ABC):
    """Fine-tunes ``config.model`` on ``config.data``, resuming from ``store``'s newest state.

    Every rank of a gang builds one and calls :meth:`fit`; the trainer joins the framework's
    process group itself (torch.distributed, mlx.distributed) from ``world``. Rank 0 saves a
    checkpoint every ``checkpoint_every`` steps and at the end; every rank loads the newest at start.

    ``Options`` is the trainer's own settings, as TRL's trainers own theirs: a dataclass whose fields are
    its ``--trainer-option``s (names, types, defaults; ``__post_init__`` checks values). ``cua-bench-rl
    sft`` types and checks ``config.options`` against it before any rank or job starts; the trainer reads
    them as ``self.options``.

    Args:
        config: the run's settings (``config.options``: this trainer's ``Options`` fields).
        world: this process's rank and world size.
        store: where the run's checkpoints are kept (the pool's inside a ``cua run`` job).

    Raises:
        CuaError: ``config.options`` holds a key ``Options`` has no field for, or a value of the wrong type.
    """

    name: ClassVar[str]
    Options: ClassVar[type[Any]] = NoOptions

    def __init__(self, config: SFTConfig, world: World, store: Checkpoints) -> None:
        self.config = config
        self.world = world
        self.store = store
        self.options = self.Options(**typed_trainer_options(type(self), config.options))

    @abstractmethod
    def fit(self, on_step: Callable[[SFTStep], None] | None = None) -> SFTResult:
        """Train from the newest checkpoint (or the start) to ``config.steps``."""

    def result(
        self, start: int, losses: list[float], tokens: int, seconds: float, exchanges: int, adapter: str | None
    ) -> SFTResult:
        """This run's result; the fields every trainer fills the same way are filled here."""
        return SFTResult(
            trainer=self.name,
            world_size=self.world.size,
            start_step=start,
            steps=max(start, self.config.steps),
            losses=losses,
            tokens=tokens,
            seconds=seconds,
            exchanges=exchanges,
            adapter=adapter,
            config=self.config.to_dict(),
        )


# What a checkpoint's numbers depend on: resuming under other values would label the run wrongly.
_RESUME_KEYS = ("trainer", "adapter", "lr", "micro_batch", "grad_accumulation", "lora", "lora_rank", "lora_alpha",
                "lora_targets", "history", "max_length", "seed")  # fmt: skip


def check_resumable(saved: dict[str, Any], config: SFTConfig, where: object) -> None:
    """Refuse to continue a checkpoint made with other training settings (paths and step counts may change)."""
    now = config.to_dict()
    differ = [f"{k} {saved.get(k)!r} -> {now[k]!r}" for k in _RESUME_KEYS if saved.get(k) != now[k]]
    if differ:
        raise CuaError(
            f"sft: the newest checkpoint in {where} was trained with other settings ({'; '.join(differ)}); "
            "rerun with its settings, or give a fresh --output"
        )


def check_same_start(trainer: str, starts: Sequence[int]) -> None:
    """Every rank must resume from the same step (``starts``: each rank's, gathered by the trainer),
    or their gradient exchanges pair up wrongly and wait forever."""
    if len(set(starts)) > 1:
        each = ", ".join(f"rank {r}: {s}" for r, s in enumerate(starts))
        raise CuaError(
            f"{trainer}: the ranks would resume from different steps ({each}): each read its own checkpoints; "
            "give every rank the same --output folder, or run under `cua run`, whose checkpoint store every "
            "rank shares"
        )


def _registry() -> Any:
    from cua_bench_rl.registry import sft_trainers

    return sft_trainers()


def typed_trainer_options(trainer: type[SFTTrainer], options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` (``--trainer-option``s) typed by ``trainer.Options`` and checked by it.

    Args:
        trainer: an SFT trainer class.
        options: option name to value, text (``"30"``) or already of its field's type.

    Returns:
        The options given, each of its field's type (what ``config.options`` records).

    Raises:
        CuaError: a key ``Options`` has no field for (naming the closest and every field), a value not of
            its field's type, or one ``Options.__post_init__`` refuses.
    """
    label = f"sft --trainer {trainer.name}"
    typed = typed_options(trainer.Options, options, label=label, what="trainer option", flag="--trainer-option")
    try:
        trainer.Options(**typed)  # its own checks
    except (TypeError, ValueError) as exc:
        raise CuaError(f"{label}: {exc}") from exc
    return typed


def preflight(config: SFTConfig) -> SFTConfig:
    """Every mistake a user can make in the settings, found before any rank starts, cheapest first: the
    trainer, its options (typed by its ``Options``), the adapter, the model folder, the data.

    Returns:
        ``config`` with its trainer options typed, as ranks and a pool job get them.
    """
    from cua_data import StoreError, resolve_dataset
    from cua_data.registry import adapters

    trainer = _registry()[config.trainer]  # raises, naming what is installed and the closest spelling
    config = dataclasses.replace(config, options=typed_trainer_options(trainer, config.options))
    adapters()[config.adapter]  # the same for adapters
    model = Path(config.model)
    if not (model / "config.json").is_file():
        raise CuaError(
            f"sft: --model {config.model!r} is not a checkpoint folder (no config.json there); give a folder "
            "saved with save_pretrained, such as a downloaded Qwen/Qwen2.5-VL-3B-Instruct"
        )
    try:
        resolve_dataset(config.data)  # a dataset folder, or a run folder (its trajectories/), as every reader takes
    except StoreError as exc:
        raise CuaError(f"sft: --data {config.data!r}: {exc}") from exc
    return config


def load_examples(config: SFTConfig) -> list[Example]:
    """Every decision of every ``use`` trajectory in ``config.data``, as the adapter renders it."""
    from cua_data import DatasetReader, HistoryPolicy, as_image, sft_examples
    from cua_data.registry import adapters

    reader = DatasetReader(config.data, task_type="use")
    family = adapters()[config.adapter]
    adapter = family(history=HistoryPolicy(last_n=config.history))

    def load_image(ref: str | bytes) -> Any:
        return as_image(ref if isinstance(ref, bytes) else reader.images.get(ref))

    # In a stable order, so that every rank (each may have recorded its own copy) indexes the same list.
    samples = sorted(reader, key=lambda s: str(s.metadata.others.get("episode") or s.metadata.others.get("id") or ""))
    examples: list[Example] = []
    for n, sample in enumerate(samples):
        try:
            examples.extend(sft_examples(sample, adapter, load_image))
        except ValueError as exc:
            raise CuaError(f"sft: trajectory {n} of {config.data}: {exc}") from exc
    if not examples:
        raise CuaError(f"sft: {config.data} holds no 'use' trajectory with an assistant turn to train on")
    return examples


def micro_batches(count: int, config: SFTConfig, world: World, step: int) -> list[list[int]]:
    """Indices into the examples for this rank's micro-batches of optimiser step ``step`` (0-based).

    The examples are shuffled once per epoch (seeded by ``config.seed`` and the epoch) and dealt out
    in order: step s, rank r, micro-batch m takes the next ``micro_batch`` of them. Ranks never see
    the same example in one step, and a run resumed at step s trains on what it would have.
    """
    per_step = config.micro_batch * config.grad_accumulation * world.size
    start = step * per_step + world.rank * config.micro_batch * config.grad_accumulation
    picked: list[int] = []
    orders: dict[int, list[int]] = {}
    for position in range(start, start + config.micro_batch * config.grad_accumulation):
        epoch, offset = divmod(position, count)
        if epoch not in orders:
            order = list(range(count))
            random.Random(f"{config.seed}:{epoch}").shuffle(order)
            orders[epoch] = order
        picked.append(orders[epoch][offset])
    size = config.micro_batch
    return [picked[i : i + size] for i in range(0, len(picked), size)]


def run_sft(config: SFTConfig, on_step: Callable[[SFTStep], None] | None = None) -> SFTResult:
    """This process's part of an SFT run: checks, then the trainer's ``fit`` (every rank calls this)."""
    config = preflight(config)
    world = World.from_env()
    store = checkpoints_in(Path(config.output) / "checkpoints")
    trainer_class = _registry()[config.trainer]
    return trainer_class(config, world, store).fit(on_step)  # type: ignore[no-any-return]


def oracle_dataset(folder: Path, *, tasks: Sequence[str] = ("click-button", "login"), variants: int = 16) -> Path:
    """LiteSample trajectories of the sim taskset's oracle on ``tasks`` (train split): SFT data that
    needs nothing downloaded. Returns the dataset folder (``folder/trajectories``); reuses a finished one."""
    from cua_bench import RunConfig, Runner

    summary = folder / "summary.json"
    if not summary.exists():
        config = RunConfig(
            taskset="sim", output=folder, agent="oracle", split="train", variants=variants, tasks=",".join(tasks)
        )
        Runner(config).run()
    result = json.loads(summary.read_text())
    if result.get("errors") or not result.get("episodes"):
        raise CuaError(f"sft: the oracle run in {folder} had errored episodes or none; see {folder / 'episodes.jsonl'}")
    return folder / "trajectories"
