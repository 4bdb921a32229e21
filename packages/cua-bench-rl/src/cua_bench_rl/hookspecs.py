"""cua-bench-rl's hooks. The built-in trainer plugins implement them exactly as third-party ones do."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

from cua_core import Register

if TYPE_CHECKING:
    from collections.abc import Callable

    from cua_bench_rl.policy import Policy
    from cua_bench_rl.sft import SFTTrainer
    from cua_bench_rl.trainer import Trainer

hookspec = pluggy.HookspecMarker("cua_bench_rl")
hookimpl = pluggy.HookimplMarker("cua_bench_rl")


@hookspec
def cua_bench_rl_register_trainers(register: Register[type[Trainer]]) -> None:
    """Add trainers.

    Call ``register(name, trainer_class, description="...")`` once per trainer, where
    ``trainer_class`` subclasses :class:`cua_bench_rl.trainer.Trainer` and is built as
    ``trainer_class(policy, config, reference=None)``, ``config`` an instance of its ``Config`` (a
    :class:`cua_bench_rl.trainer.TrainerConfig` subclass: its ``--trainer-option``s). ``--trainer-option`` is
    checked against ``trainer_class.Config`` before anything heavy loads, so importing the class should not
    import torch (import it in the methods that use it).
    """


@hookspec
def cua_bench_rl_register_sft_trainers(register: Register[type[SFTTrainer]]) -> None:
    """Add supervised fine-tuning trainers (``cua-bench-rl sft --trainer NAME``).

    Call ``register(name, trainer_class, description="...")`` where ``trainer_class`` subclasses
    :class:`cua_bench_rl.sft.SFTTrainer` and is built as ``trainer_class(config, world, store)`` on
    every rank of the run; its ``Options`` (a dataclass) are the ``--trainer-option``s it takes.
    """


@hookspec
def cua_bench_rl_register_policies(register: Register[Callable[..., Policy]]) -> None:
    """Add policies that ``cua-bench-rl train --policy NAME`` can build.

    Call ``register(name, factory, description="...")`` where ``factory(**options)`` returns a
    :class:`cua_bench_rl.policy.Policy` (options come from ``--policy-option key=value`` and the
    run's config file; a wrong option is a TypeError naming it).
    """


@hookspec(firstresult=True)
def cua_bench_rl_reload_weights(base_url: str, path: str, version: int) -> bool | None:
    """Make the OpenAI-compatible server at ``base_url`` serve the weights saved under ``path``.

    Return True once the server serves them, None if this plugin does not know the server (the
    next plugin is asked). Raise with the server's answer when it refused. ``path`` is a folder
    saved with ``save_pretrained`` (a full model or a LoRA adapter) that the server can read.
    """
