"""What the ``trl`` SFT trainer adds to TRL's loop: checkpoints in cua's store, and cua's step reports.

TRL's step counter starts at 0 in every run; a resumed run's steps are the checkpoint's step plus
TRL's, so the counter goes on across restarts. Every rank loads the checkpoint (weights and
optimizer) when training begins, after TRL has wrapped the model in peft and DDP; rank 0 alone saves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import transformers

from cua_bench_rl import Checkpoints, SFTConfig, SFTStep, World
from cua_core import CuaError

__all__ = ["StoreCallback", "trainable_state"]


def _unwrap(model: Any) -> Any:
    return getattr(model, "module", model)  # DDP keeps the model under .module


def trainable_state(model: Any) -> dict[str, Any]:
    """The parameters the optimiser moves (the LoRA weights, or every weight), copied to the CPU."""
    return {n: p.detach().to("cpu").clone() for n, p in _unwrap(model).named_parameters() if p.requires_grad}


class StoreCallback(transformers.TrainerCallback):
    """Resume from ``state`` at train begin; save to ``store`` every ``checkpoint_every`` steps and at
    the end (rank 0); report each step (rank 0) with every rank's tokens."""

    def __init__(
        self,
        store: Checkpoints,
        world: World,
        config: SFTConfig,
        start: int,
        state: Any,
        on_step: Callable[[SFTStep], None] | None,
    ) -> None:
        self.store, self.world, self.config, self.start, self.state = store, world, config, start, state
        self.on_step = on_step
        self.counter: Any = None  # the trainer, whose tokens_seen counts this rank's tokens
        self.losses: list[float] = []
        self.tokens = 0
        self._step_tokens: dict[int, int] = {}
        self._seen = 0
        self._last = time.monotonic()
        self._seconds: dict[int, float] = {}

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._last = time.monotonic()
        if self.state is None:
            return
        model, optimizer = kwargs["model"], kwargs["optimizer"]
        weights = self.state["trainable"]
        own = set(trainable_state(model))
        if set(weights) != own:
            missing, extra = sorted(own - set(weights))[:3], sorted(set(weights) - own)[:3]
            raise CuaError(
                f"sft: the checkpoint at step {self.start} does not fit this model (missing {missing}, unexpected "
                f"{extra}); resume with the settings it was saved with (lora, lora_rank, lora_targets), or give "
                "another --output"
            )
        _unwrap(model).load_state_dict(weights, strict=False)
        optimizer.load_state_dict(self.state["optimizer"])

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        import torch

        step = self.start + state.global_step
        seen = int(self.counter.tokens_seen) if self.counter is not None else 0
        tokens = torch.tensor([seen - self._seen], dtype=torch.long)
        self._seen = seen
        if self.world.size > 1 and torch.distributed.is_initialized():
            torch.distributed.all_reduce(tokens)  # every rank's tokens (not a gradient exchange)
        self._step_tokens[step] = int(tokens)
        self.tokens += int(tokens)
        now = time.monotonic()
        self._seconds[step] = now - self._last
        self._last = now
        if self.world.main and self.config.checkpoint_due(step):
            model, optimizer = kwargs["model"], kwargs["optimizer"]
            self.store.save(
                {
                    "trainable": trainable_state(model),
                    "optimizer": optimizer.state_dict(),
                    "step": step,
                    "config": self.config.to_dict(),
                },
                step,
            )

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        if not logs or "loss" not in logs:
            return
        step = self.start + state.global_step
        loss = float(logs["loss"])
        self.losses.append(loss)
        if self.on_step is not None and self.world.main:
            self.on_step(SFTStep(step, loss, self._step_tokens.get(step, 0), self._seconds.get(step, 0.0)))
