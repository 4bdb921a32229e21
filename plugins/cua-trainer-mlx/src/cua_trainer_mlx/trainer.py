"""``MLXTrainer``: LoRA SFT of a checkpoint's language tower with mlx / mlx-lm, on one or many ranks.

What it trains, plainly: the **text tower** of the model (mlx-lm loads a Qwen2.5-VL folder without
its vision tower) on **text-only prompts**, the adapter's prompt text with the screenshots left out
(:mod:`cua_trainer_mlx.data`). The ``ddp`` and ``trl`` trainers train the full VLM on the prompts
with their screenshots. On Apple silicon this is the trainer that uses the GPU; on Linux it runs
on mlx's CPU build (or its CUDA build, ``mlx[cuda12]``).

The loop is our own rather than ``mlx_lm.tuner.trainer.train``, which can neither resume (no start
step, no optimiser state) nor take the shared micro-batch stream: each optimiser step runs
``grad_accumulation`` micro-batches from :func:`cua_bench_rl.sft.micro_batches`, averages their
gradients, and exchanges them across ranks once (``mlx.nn.average_gradients`` over the ring
backend), so on a slow link k micro-batches share one exchange. The step's mean loss rides in
the same exchange (one more float), so rank 0 reports every rank's loss without a second round
trip; every rank's token count needs none, as each rank knows which examples every other rank
took at a step.

Ranks: a pool gang (or ``mlx.launch --backend ring``) sets ``MLX_RANK`` and ``MLX_HOSTFILE``.
At world size 1 no group is joined and ``MLX_HOSTFILE`` is dropped from the environment, because
mlx's ring backend hangs on a one-entry hostfile, which a pool gang of one gets.

Options (``--trainer-option``, :class:`MLXOptions`): ``link_delay_ms`` and ``link_jitter_ms`` add a delay
to each gradient exchange, as the ddp trainer's do (bench/training.py). ``config.threads`` is not used: mlx
has no setting for its CPU thread count; pin a rank to cores with ``taskset`` instead.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from cua_bench_rl import (
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
from cua_data import write_model_folder
from cua_trainer_mlx.checkpoint import PeftFiles, flatten, restore, snapshot, write_adapter
from cua_trainer_mlx.data import Encoded, batch, encode
from cua_trainer_mlx.model import apply_lora, load_text_model, lora_parameters

__all__ = ["MLXOptions", "MLXTrainer", "join_world"]

_LOSS = "__step_loss__"  # the key the step's loss travels under in the gradient exchange


@dataclass(frozen=True)
class MLXOptions:
    """The mlx trainer's ``--trainer-option``s."""

    link_delay_ms: float = 0.0  # slept before each gradient exchange: an emulated link latency
    link_jitter_ms: float = 0.0  # the delay varies by up to this much either way


class MLXTrainer(SFTTrainer):
    name = "mlx"
    Options: ClassVar[type[MLXOptions]] = MLXOptions
    options: MLXOptions
    model: Any = None  # the mlx model with its LoRA layers, once fit() has built it (to inspect or reuse)

    def fit(self, on_step: Callable[[SFTStep], None] | None = None) -> SFTResult:
        import mlx.core as mx
        import mlx.optimizers as optim
        from mlx.nn.utils import average_gradients, value_and_grad

        config, world = self.config, self.world
        if not config.lora:
            raise CuaError("mlx: this trainer trains LoRA adapters only; set lora=true, or use --trainer ddp")
        group = join_world(world)
        model, tokenizer = load_text_model(config.model)
        rows = [encode(example, tokenizer, max_length=config.max_length) for example in load_examples(config)]
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0  # masked: any id does
        mx.random.seed(config.seed)  # the same LoRA initialisation on every rank
        lora = lora_parameters(model, config.lora_targets, config.lora_rank, config.lora_alpha)
        layers = apply_lora(model, lora)
        self.model = model
        optimizer = optim.AdamW(learning_rate=config.lr, weight_decay=0.0)  # the contract's optimiser
        start = self._resume(model, optimizer)
        if group is not None:
            _agree_on_start(start, group)
        loss_and_grad = value_and_grad(model, _loss)
        delay = _link_delay(self.options)

        losses: list[float] = []
        tokens = exchanges = 0
        began = time.perf_counter()
        for step in range(start, config.steps):
            step_began = time.perf_counter()
            batches = [[rows[i] for i in indices] for indices in micro_batches(len(rows), config, world, step)]
            grads, mean = _accumulate(loss_and_grad, model, batches, pad_id)
            if group is not None:
                delay()
                dtype = next(iter(flatten(grads).values())).dtype
                averaged = average_gradients({**grads, _LOSS: mean.reshape(1).astype(dtype)}, group=group)
                mean = averaged.pop(_LOSS)[0]
                grads = averaged
                exchanges += 1
            optimizer.update(model, grads)
            mx.eval(model.parameters(), optimizer.state, mean)
            step_tokens = _tokens(rows, config, world, step)
            losses.append(float(mean.item()))
            tokens += step_tokens
            if world.main:
                if config.checkpoint_due(step + 1):
                    self.store.save(snapshot(model, optimizer, step + 1, config.to_dict()), step + 1)
                if on_step is not None:
                    on_step(SFTStep(step + 1, losses[-1], step_tokens, time.perf_counter() - step_began))
        seconds = time.perf_counter() - began
        adapter = None
        if world.main:
            adapter = str(write_adapter(Path(config.output) / "adapter", model, layers, lora, config.model))
            # and as every trainer writes its result: a folder transformers and the hf agent load as it is
            peft = PeftFiles(model, config.model, config.lora_rank, config.lora_alpha, list(lora["keys"]))
            write_model_folder(Path(config.output) / "model", peft, config.model, None, config.prompt_settings())
        return self.result(start, losses, tokens, seconds, exchanges, adapter)

    def _resume(self, model: Any, optimizer: Any) -> int:
        state = self.store.load()
        if state is None:
            return 0
        check_resumable(state["config"], self.config, self.store)
        return restore(model, optimizer, state, repr(self.store))


def join_world(world: World) -> Any | None:
    """mlx's ring group for a world of several ranks; None (and no group joined) for one."""
    if world.size == 1:
        os.environ.pop("MLX_HOSTFILE", None)  # a one-entry hostfile hangs the ring backend's init
        return None
    hostfile = os.environ.get("MLX_HOSTFILE")
    if not hostfile:
        raise CuaError(
            f"mlx: rank {world.rank} of {world.size}, but MLX_HOSTFILE is unset: mlx's ring backend needs a hostfile "
            '(one ["ip:port"] per rank); launch with `cua run --nodes N` or `mlx.launch --backend ring`'
        )
    try:
        entries = json.loads(Path(hostfile).read_text())
    except (OSError, ValueError) as exc:
        raise CuaError(f"mlx: cannot read the hostfile MLX_HOSTFILE={hostfile!r}: {exc}") from exc
    if not isinstance(entries, list) or len(entries) != world.size:
        count = len(entries) if isinstance(entries, list) else "no"
        raise CuaError(f"mlx: the hostfile {hostfile} lists {count} ranks, but the world size is {world.size}")
    os.environ.setdefault("MLX_RANK", str(world.rank))
    import mlx.core as mx

    group = mx.distributed.init(backend="ring", strict=True)
    if group.size() != world.size or group.rank() != world.rank:
        raise CuaError(
            f"mlx: the ring group says rank {group.rank()} of {group.size()}, the environment rank {world.rank} of "
            f"{world.size}; MLX_RANK and RANK disagree"
        )
    return group


def _agree_on_start(start: int, group: Any) -> None:
    import mlx.core as mx

    gathered: Any = mx.distributed.all_gather(mx.array([start]), group=group).tolist()  # one int per rank
    check_same_start("mlx", [int(s) for s in gathered])


def _accumulate(loss_and_grad: Any, model: Any, batches: list[list[Encoded]], pad_id: int) -> tuple[Any, Any]:
    """This rank's mean gradient and mean loss over its micro-batches of one step (nothing exchanged)."""
    import mlx.core as mx
    from mlx.utils import tree_map

    summed: Any = None
    total: Any = mx.array(0.0)
    for rows in batches:
        loss, grads = loss_and_grad(model, *batch(rows, pad_id))
        summed = grads if summed is None else tree_map(mx.add, summed, grads)
        total = total + loss
        mx.eval(summed, total)  # keep each micro-batch's graph from piling up
    return tree_map(partial(mx.multiply, 1.0 / len(batches)), summed), total / len(batches)


def _loss(model: Any, inputs: Any, targets: Any, mask: Any) -> Any:
    """Mean cross-entropy over the target tokens of a micro-batch."""
    from mlx import nn

    per_token = nn.losses.cross_entropy(model(inputs), targets) * mask
    return per_token.sum() / mask.sum()


def _tokens(rows: list[Encoded], config: Any, world: World, step: int) -> int:
    """Every rank's non-padding tokens at ``step``: the stream is a pure function of step and rank."""
    count = 0
    for rank in range(world.size):
        peer = dataclasses.replace(world, rank=rank)
        count += sum(len(rows[i].ids) for indices in micro_batches(len(rows), config, peer, step) for i in indices)
    return count


def _link_delay(options: MLXOptions) -> Callable[[], None]:
    """A sleep before each exchange, emulating a slow link's latency (see the module docstring)."""
    delay, jitter = options.link_delay_ms / 1000, options.link_jitter_ms / 1000
    rng = random.Random(0)

    def sleep() -> None:
        if delay or jitter:
            time.sleep(max(0.0, delay + rng.uniform(-jitter, jitter)))

    return sleep
