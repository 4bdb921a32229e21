"""cua-trainer-grpo's hooks (entry point group ``cua_bench_rl``).

One function per hook; each imports what it registers only when called, so listing plugins never
imports torch or transformers. A policy added to this plugin is one more ``register(...)`` line in
``cua_bench_rl_register_policies``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cua_bench_rl import hookimpl
from cua_core import Register

if TYPE_CHECKING:
    from cua_bench_rl import Policy, Trainer


@hookimpl
def cua_bench_rl_register_trainers(register: Register[type[Trainer]]) -> None:
    from cua_trainer_grpo.trainer import GRPOTrainer

    register("grpo", GRPOTrainer, description="GRPO on torch: full fine-tuning or LoRA (peft), AdamW, optional KL")


def _qwen_vl(**options: Any) -> Policy:
    from cua_trainer_grpo.policies.vlm import QwenVLPolicy

    return QwenVLPolicy(**options)


def _pixel_click(**options: Any) -> Policy:
    from cua_trainer_grpo.policies.pixel import PixelClickPolicy

    return PixelClickPolicy(**options)


def _a11y(**options: Any) -> Policy:
    from cua_trainer_grpo.policies.a11y import A11yPolicy

    return A11yPolicy(**options)


@hookimpl
def cua_bench_rl_register_policies(register: Register[Callable[..., Policy]]) -> None:
    register(
        "qwen-vl",
        _qwen_vl,
        description="a transformers Qwen-VL model with its cua adapter: model=PATH [adapter=qwen2.5-vl max_size=WxH]",
    )
    register(
        "pixel-click",
        _pixel_click,
        description="a small conv net that clicks one cell of a grid over the screenshot, where a filter learned "
        "for each of the instruction's words responds most",
    )
    register(
        "a11y",
        _a11y,
        description="a small scorer over the a11y tree's options: click a node, type a quoted span into a field, "
        "or done",
    )


@hookimpl
def cua_bench_rl_reload_weights(base_url: str, path: str, version: int) -> bool | None:
    from cua_trainer_grpo.reload import reload_weights

    return reload_weights(base_url, path, version)
