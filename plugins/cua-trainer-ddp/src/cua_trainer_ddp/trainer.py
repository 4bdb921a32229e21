"""``DDPTrainer``: SFT of a transformers VLM on LiteSample data with torch DistributedDataParallel.

The batches are the adapter's own prompts collated by the family's processor (images included), so
what is trained is what the agent renders at run time. Ranks join torch.distributed from the
variables a pool gang or torchrun sets (gloo on CPU, NCCL on GPU); each optimiser step runs
``grad_accumulation`` micro-batches and exchanges gradients once, on the last (``no_sync`` on the
others): on a slow link that is the knob that decides how much of a step is spent waiting.

Options (``--trainer-option``, :class:`DDPOptions`): ``link_delay_ms`` and ``link_jitter_ms`` add a delay
to each gradient exchange, to emulate a slow link's latency where the kernel has no ``tc netem``
(bench/training.py); ``timeout_s`` is the process group's timeout.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from cua_bench_rl import (
    SFTResult,
    SFTStep,
    SFTTrainer,
    check_resumable,
    check_same_start,
    load_examples,
    micro_batches,
)
from cua_core import CuaError
from cua_data import collate, load_processor, write_model_folder

__all__ = ["DDPOptions", "DDPTrainer"]


@dataclass(frozen=True)
class DDPOptions:
    """The ddp trainer's ``--trainer-option``s."""

    link_delay_ms: float = 0.0  # slept before each gradient exchange: an emulated link latency
    link_jitter_ms: float = 0.0  # the delay varies by up to this much either way
    timeout_s: float = 120.0  # torch.distributed's process-group timeout


class DDPTrainer(SFTTrainer):
    name = "ddp"
    Options: ClassVar[type[DDPOptions]] = DDPOptions
    options: DDPOptions

    def fit(self, on_step: Callable[[SFTStep], None] | None = None) -> SFTResult:
        config, world = self.config, self.world
        if config.threads:
            torch.set_num_threads(config.threads)
        examples = load_examples(config)
        processor = load_processor(config.model)
        torch.manual_seed(config.seed)  # the same LoRA init on every rank (DDP also broadcasts rank 0's)
        model = _load_model(config.model)
        trainable = _wrap_lora(model, config) if config.lora else model
        names = [name for name, p in trainable.named_parameters() if p.requires_grad]
        params = [p for p in trainable.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=0.0)  # the contract's optimiser
        start = self._resume(trainable, optimizer, names)
        device = torch.device("cuda", world.local_rank) if torch.cuda.is_available() else torch.device("cpu")
        trainable.to(device)
        calls = [0]  # all-reduce calls since the last micro-batch (one per gradient bucket)
        exchanges = 0  # micro-batches whose backward exchanged gradients: one per step when no_sync works
        with _process_group(world, device, self.options.timeout_s):
            net: torch.nn.Module = trainable
            ddp: DistributedDataParallel | None = None
            if world.size > 1:
                _agree_on_start(start, world.size, device)
                ddp = DistributedDataParallel(trainable, device_ids=[device.index] if device.type == "cuda" else None)
                ddp.register_comm_hook(None, _counting_hook(calls, self.options))
                net = ddp
            net.train()
            losses: list[float] = []
            tokens = 0
            began = time.perf_counter()
            for step in range(start, config.steps):
                step_began = time.perf_counter()
                batches = micro_batches(len(examples), config, world, step)
                total, step_tokens = 0.0, 0
                for m, indices in enumerate(batches):
                    batch = collate([examples[i] for i in indices], processor, max_length=config.max_length)
                    batch = {key: value.to(device) for key, value in batch.items()}
                    step_tokens += int(batch["attention_mask"].sum())
                    last = m == len(batches) - 1
                    sync = contextlib.nullcontext() if last or world.size == 1 else net.no_sync()  # type: ignore[operator]
                    with sync:
                        loss = net(**batch).loss / len(batches)
                        loss.backward()
                    total += float(loss.detach())
                    exchanges += calls[0] > 0
                    calls[0] = 0
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                losses.append(total)
                tokens += step_tokens
                if world.main:
                    if config.checkpoint_due(step + 1):
                        self._save(trainable, optimizer, names, step + 1)
                    if on_step is not None:
                        on_step(SFTStep(step + 1, total, step_tokens, time.perf_counter() - step_began))
            seconds = time.perf_counter() - began
            if world.size > 1:
                counted = torch.tensor([tokens], dtype=torch.int64, device=device)
                dist.all_reduce(counted)
                tokens = int(counted.item())
            # DDP's reducer holds the process group; freed after the group is destroyed, its gloo
            # threads wait forever for a peer that has left (rank 1 hung at exit, rank 0 done).
            del net
            ddp = None
        adapter = None
        if world.main:
            folder = write_model_folder(Path(config.output) / "model", trainable, config.model, processor,
                                        config.prompt_settings())  # fmt: skip
            adapter = str(folder)
        return self.result(start, losses, tokens, seconds, exchanges, adapter)

    def _resume(self, module: torch.nn.Module, optimizer: torch.optim.Optimizer, names: list[str]) -> int:
        state = self.store.load()
        if state is None:
            return 0
        check_resumable(state["config"], self.config, self.store)
        saved = state["trainable"]
        if sorted(saved) != sorted(names):
            raise CuaError(
                f"ddp: the newest checkpoint in {self.store!r} holds other weights ({len(saved)} tensors, "
                f"{len(names)} here): it is from a run with other settings (lora, lora_targets, model); "
                "give a fresh --output"
            )
        params = dict(module.named_parameters())
        with torch.no_grad():
            for name, value in saved.items():
                params[name].copy_(value)
        optimizer.load_state_dict(state["optimizer"])
        return int(state["step"])

    def _save(self, module: torch.nn.Module, optimizer: torch.optim.Optimizer, names: list[str], step: int) -> None:
        params = dict(module.named_parameters())
        state = {
            "trainable": {name: params[name].detach().cpu().clone() for name in names},
            "optimizer": optimizer.state_dict(),
            "step": step,
            "config": self.config.to_dict(),
        }
        self.store.save(state, step)


def _load_model(path: str) -> Any:
    import transformers

    auto: Any = transformers.AutoModelForImageTextToText  # untyped library: Any keeps mypy strict here
    try:
        return auto.from_pretrained(path, dtype=torch.float32)
    except (OSError, ValueError) as exc:
        raise CuaError(
            f"ddp: cannot load the model in {path!r} ({exc}); give a transformers VLM checkpoint folder"
        ) from exc


def _wrap_lora(model: Any, config: Any) -> Any:
    import peft

    lora = peft.LoraConfig(
        r=config.lora_rank,
        lora_alpha=config.lora_alpha,
        target_modules=list(config.lora_targets),
        lora_dropout=0.0,
        bias="none",
    )
    try:
        return peft.get_peft_model(model, lora)
    except ValueError as exc:
        raise CuaError(
            f"ddp: LoRA targets {', '.join(config.lora_targets)} match no module of {config.model!r} ({exc}); "
            "set --lora-targets NAME,NAME (module names of the model) or --full"
        ) from exc


@contextlib.contextmanager
def _process_group(world: Any, device: torch.device, timeout: float) -> Iterator[None]:
    """Join (and leave) torch.distributed when there is more than one rank and nobody joined yet."""
    if world.size == 1 or dist.is_initialized():
        yield
        return
    backend = "nccl" if device.type == "cuda" else "gloo"
    host = f"[{world.master_addr}]" if ":" in world.master_addr else world.master_addr
    dist.init_process_group(
        backend,
        init_method=f"tcp://{host}:{world.master_port}",
        rank=world.rank,
        world_size=world.size,
        timeout=timedelta(seconds=timeout),
    )
    try:
        yield
        dist.barrier()  # every rank has finished with the group before any leaves it
    finally:
        dist.destroy_process_group()


def _agree_on_start(start: int, size: int, device: torch.device) -> None:
    steps = [torch.zeros(1, dtype=torch.int64, device=device) for _ in range(size)]
    dist.all_gather(steps, torch.tensor([start], dtype=torch.int64, device=device))
    check_same_start("ddp", [int(s.item()) for s in steps])


def _counting_hook(counter: list[int], options: DDPOptions) -> Any:
    """DDP's own all-reduce, counted; the emulated link delay (module docstring) is paid once per
    exchange, on its first bucket, as a link's latency would be."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    delay, jitter = options.link_delay_ms / 1000, options.link_jitter_ms / 1000
    rng = random.Random(0)

    def hook(state: Any, bucket: Any) -> torch.futures.Future[torch.Tensor]:
        first = counter[0] == 0
        counter[0] += 1
        if first and (delay or jitter):
            time.sleep(max(0.0, delay + rng.uniform(-jitter, jitter)))
        return default_hooks.allreduce_hook(state, bucket)

    # DDP checks the hook's annotations as objects; this module's are strings (future annotations).
    hook.__annotations__ = {"state": object, "bucket": dist.GradBucket, "return": torch.futures.Future[torch.Tensor]}  # type: ignore[attr-defined]
    return hook
