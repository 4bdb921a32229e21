"""The ``trl`` SFT trainer: TRL's ``SFTTrainer`` on cua's examples, through the adapter's own collation.

TRL tokenizes nothing here (``skip_prepare_dataset``): the dataset is a column of example indices and
the collator renders them with ``cua_data.adapters.sft.collate``, so TRL trains on exactly the
prompts the agent renders at run time, with labels only on the target (the same batches as the
``ddp`` trainer). The rows are laid out in the order of :func:`cua_bench_rl.sft.micro_batches` and read
sequentially: accelerate deals batch ``i`` to rank ``i % world``, so each rank sees exactly the
micro-batches the contract gives it, and a resumed run continues the same stream.

Resume: TRL's own checkpoints are folders on one disk, while a pool gang may restart on other
computers, so the state ``{trainable weights, optimizer, step}`` goes to ``self.store`` instead
(:mod:`cua_trainer_trl.callbacks`), and a resumed run trains the remaining steps as a fresh TRL run
whose step numbers are offset by the checkpoint's. The learning rate is constant (no scheduler state
to carry over).

Options (``--trainer-option``): the fields of ``trl.SFTConfig``, typed by their annotations, less those
the sft settings decide (:data:`_OWN`: ``learning_rate`` is ``--lr``...), which are refused naming them.
``TRLSFTTrainer.Options`` is made from ``trl.SFTConfig`` when first read, so listing the trainers (which
imports this module) does not import trl.
"""

from __future__ import annotations

import dataclasses
import functools
import time
import typing
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar

from cua_bench_rl import (
    Example,
    SFTResult,
    SFTStep,
    SFTTrainer,
    World,
    check_resumable,
    check_same_start,
    load_examples,
    micro_batches,
)
from cua_core import CuaError

__all__ = ["TRLSFTTrainer", "ordered_rows"]

# TRL settings this trainer decides itself: --trainer-option may not override them.
_OWN = {
    "output_dir", "max_steps", "learning_rate", "per_device_train_batch_size", "gradient_accumulation_steps",
    "seed", "use_cpu", "report_to", "remove_unused_columns", "dataset_kwargs", "train_sampling_strategy",
    "logging_steps", "save_strategy", "lr_scheduler_type", "num_train_epochs",
}  # fmt: skip


def ordered_rows(count: int, config: Any, world: World, start: int) -> list[int]:
    """Example indices for steps ``start..config.steps`` in the order a sequential sampler must read them.

    Batch ``j`` (``micro_batch`` rows) goes to rank ``j % world.size`` (accelerate's sharding), so the
    rows are step by step, micro-batch by micro-batch, rank by rank.
    """
    rows: list[int] = []
    for step in range(start, config.steps):
        per_rank = [micro_batches(count, config, dataclasses.replace(world, rank=r), step) for r in range(world.size)]
        for m in range(config.grad_accumulation):
            for r in range(world.size):
                rows.extend(per_rank[r][m])
    return rows


def _load(config: Any) -> tuple[Any, Any]:
    import torch
    import transformers

    from cua_data import load_processor

    auto: Any = transformers.AutoModelForImageTextToText  # untyped library: Any keeps mypy strict here
    try:
        processor = load_processor(config.model)
        model = auto.from_pretrained(config.model, dtype=torch.float32)
    except (OSError, ValueError, KeyError) as exc:
        raise CuaError(
            f"sft: --model {config.model!r}: cannot load a transformers vision-language model: {exc}"
        ) from exc
    return model, processor


def _agree_on_start(start: int, size: int) -> None:
    """Join accelerate's process group (TRL would, a moment later) and compare every rank's start."""
    import torch
    import torch.distributed as dist
    from accelerate import PartialState  # type: ignore[import-untyped]

    device = PartialState().device
    steps = [torch.zeros(1, dtype=torch.int64, device=device) for _ in range(size)]
    dist.all_gather(steps, torch.tensor([start], dtype=torch.int64, device=device))
    check_same_start("trl", [int(s.item()) for s in steps])


def _in_a_group() -> bool:
    import torch.distributed as dist

    return bool(dist.is_available() and dist.is_initialized())


def _leave_group() -> None:
    """Wait for every rank (rank 0 writes the model folder last), then leave accelerate's process group. A rank
    that exits with the group still up can abort in gloo's threads at interpreter exit ("terminate called
    without an active exception"), and torchrun then reports the whole gang as failed."""
    import torch.distributed as dist
    from accelerate import PartialState

    dist.barrier()
    PartialState().destroy_process_group()


def _trl() -> Any:
    """trl itself, untyped: its lazy ``__init__`` exports nothing mypy can see."""
    return import_module("trl")


class _NotGiven:
    """The default of every field of the trl trainer's ``Options``: the field was not given."""

    def __repr__(self) -> str:
        return "not given"


_NOT_GIVEN = _NotGiven()


def _refuse_own(options: Any) -> None:
    """``Options.__post_init__``: the settings the sft flags decide may not come as --trainer-option."""
    clash = sorted(name for name in _OWN if getattr(options, name) is not _NOT_GIVEN)
    if clash:
        raise ValueError(
            f"option(s) {', '.join(clash)} are set by the sft settings (--steps, --lr, --micro-batch...); "
            "give SFTConfig fields other than those as --trainer-option key=value"
        )


@functools.cache
def _options_class() -> type[Any]:
    """A dataclass with ``trl.SFTConfig``'s fields and their annotations (Any where one cannot be resolved:
    cua_core.options then reads the value as JSON, else as text), each defaulting to "not given"."""
    config = _trl().SFTConfig
    try:
        hints = typing.get_type_hints(config)
    except Exception:  # an annotation trl's own module cannot resolve: each field as written
        hints = {}
    fields = [
        (f.name, hints.get(f.name, Any if isinstance(f.type, str) else f.type), dataclasses.field(default=_NOT_GIVEN))
        for f in dataclasses.fields(config)
        if f.init
    ]
    made = dataclasses.make_dataclass(
        "TRLOptions", fields, namespace={"__module__": __name__, "__post_init__": _refuse_own}, frozen=True
    )
    made.__doc__ = "The trl trainer's --trainer-options: trl.SFTConfig's fields (those the sft settings set: refused)."
    return made


class _FromTRL:
    """``TRLSFTTrainer.Options``: :func:`_options_class`, made when first read (importing trl costs seconds)."""

    def __get__(self, instance: object, owner: type | None = None) -> type[Any]:
        return _options_class()


def _given(options: Any) -> dict[str, Any]:
    """The fields of the trl trainer's ``Options`` that were given, by name."""
    found = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    return {name: value for name, value in found.items() if value is not _NOT_GIVEN}


def _trl_args(config: Any, options: dict[str, Any], steps: int, output: Path) -> Any:
    import torch

    settings: dict[str, Any] = {
        "disable_tqdm": True,
        "dataloader_num_workers": 0,
        "bf16": False,
        "warmup_steps": 0,
        "weight_decay": 0.0,
        "max_length": config.max_length,
        **options,
    }
    if "gradient_checkpointing" not in options:  # the old name of the same setting: the user's wins
        settings.setdefault("activation_checkpointing", False)  # TRL turns it on; tiny and CPU runs lose time to it
    return _trl().SFTConfig(
        output_dir=str(output),
        max_steps=steps,
        learning_rate=config.lr,
        per_device_train_batch_size=config.micro_batch,
        gradient_accumulation_steps=config.grad_accumulation,
        seed=config.seed,
        use_cpu=not torch.cuda.is_available(),
        report_to="none",
        remove_unused_columns=False,
        dataset_kwargs={"skip_prepare_dataset": True},
        train_sampling_strategy="sequential",
        logging_steps=1,
        save_strategy="no",
        lr_scheduler_type="constant",
        **settings,
    )


class TRLSFTTrainer(SFTTrainer):
    """``cua-bench-rl sft --trainer trl``: TRL's SFTTrainer, LoRA through its ``peft_config``.

    Extra ``trl.SFTConfig`` fields come from ``--trainer-option key=value`` (``activation_checkpointing=true``,
    ``bf16=true``...); the ones the sft settings decide are refused.
    """

    name: ClassVar[str] = "trl"
    Options = _FromTRL()  # a class made from trl.SFTConfig when first read
    model: Any = None  # set by fit: the trained model
    wrapper: str = ""  # set by fit: the class TRL wrapped the model in (DistributedDataParallel under a gang)

    def fit(self, on_step: Callable[[SFTStep], None] | None = None) -> SFTResult:
        import datasets
        import torch
        import transformers

        from cua_data import collate
        from cua_trainer_trl.callbacks import StoreCallback

        config, world = self.config, self.world
        if config.threads is not None:
            torch.set_num_threads(config.threads)
        torch.manual_seed(config.seed)
        examples: list[Example] = load_examples(config)
        model, processor = _load(config)
        state = self.store.load()
        if state is not None:
            check_resumable(state["config"], config, self.store)
        start = int(state["step"]) if state is not None else 0
        joins = world.size > 1 and not _in_a_group()  # a group joined here is left here
        if world.size > 1:
            _agree_on_start(start, world.size)
        if start > config.steps:
            raise CuaError(
                f"sft: the newest checkpoint in {self.store!r} is at step {start}, past --steps {config.steps}; "
                "raise --steps to train on, or give another --output"
            )
        peft_config = None
        if config.lora:
            import peft

            peft_config = peft.LoraConfig(
                r=config.lora_rank,
                lora_alpha=config.lora_alpha,
                target_modules=list(config.lora_targets),
                lora_dropout=0.0,
                task_type="CAUSAL_LM",
            )
        output = Path(config.output)
        callback = StoreCallback(self.store, world, config, start, state, on_step)

        def collator(rows: list[dict[str, Any]]) -> dict[str, Any]:
            return collate([examples[int(r["example"])] for r in rows], processor, max_length=config.max_length)

        rows = ordered_rows(len(examples), config, world, start)
        result = SFTResult(
            trainer=self.name, world_size=world.size, start_step=start, steps=start, losses=[], tokens=0,
            seconds=0.0, exchanges=0, adapter=None, config=config.to_dict(),
        )  # fmt: skip
        if start < config.steps:
            trainer = _CountingTrainer(
                model=model,
                args=_trl_args(config, _given(self.options), config.steps - start, output / "trl"),
                train_dataset=datasets.Dataset.from_dict({"example": rows}),
                data_collator=collator,
                processing_class=processor,
                peft_config=peft_config,
                callbacks=[callback],
            )
            callback.counter = trainer
            trainer.remove_callback(transformers.PrinterCallback)  # cua's on_step reports the steps instead
            started = time.monotonic()
            trainer.train()
            result.seconds = time.monotonic() - started
            self.wrapper = type(trainer.model_wrapped).__name__  # DistributedDataParallel in a gang
            model = trainer.accelerator.unwrap_model(trainer.model)
            result.steps = start + trainer.state.global_step
            result.losses = list(callback.losses)
            result.tokens = callback.tokens
            result.exchanges = trainer.state.global_step * (world.size > 1)
        self.model = model  # the trained model (peft-wrapped with LoRA), for callers that keep training or score
        if world.main:
            from cua_data import write_model_folder

            result.adapter = str(
                write_model_folder(output / "model", model, config.model, processor, config.prompt_settings())
            )
        if joins:
            _leave_group()
        return result


def _counting_trainer() -> type[Any]:
    class Counting(_trl().SFTTrainer):  # type: ignore[misc]
        """trl.SFTTrainer that counts the non-padding tokens this rank trains on."""

        tokens_seen = 0

        def compute_loss(self, model: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
            self.tokens_seen += int(inputs["attention_mask"].sum())
            return super().compute_loss(model, inputs, *args, **kwargs)

    return Counting


def _CountingTrainer(**kwargs: Any) -> Any:
    return _counting_trainer()(**kwargs)
