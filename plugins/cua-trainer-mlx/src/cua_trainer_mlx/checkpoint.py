"""What a resumed MLX run needs, as plain numpy (picklable by any store), and mlx-lm's adapter folder.

A checkpoint is ``{"lora": {name: array}, "optimizer": {key: array}, "step": int, "config": dict}``:
the trainable (LoRA) weights and AdamW's whole state (``step``, ``learning_rate``, each weight's
``m`` and ``v``), so the resumed run takes exactly the steps the uninterrupted one would have. The
final weights are written the way ``mlx_lm.lora`` writes them (``adapters.safetensors`` and
``adapter_config.json``), so ``mlx_lm.load(..., adapter_path=...)`` and ``mlx_lm.generate
--adapter-path`` use them as they are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from cua_core.errors import CuaError

__all__ = ["flatten", "restore", "snapshot", "trainable_weights", "write_adapter"]


def flatten(tree: Any) -> dict[str, Any]:
    """A tree of mx arrays (parameters, gradients, optimiser state) by dotted name."""
    from mlx.utils import tree_flatten

    return dict(cast(list[tuple[str, Any]], tree_flatten(tree)))


def trainable_weights(model: Any) -> dict[str, Any]:
    """The trainable weights by dotted name, as mx arrays."""
    return flatten(model.trainable_parameters())


def snapshot(model: Any, optimizer: Any, step: int, config: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    return {
        "lora": {name: np.array(value) for name, value in trainable_weights(model).items()},
        "optimizer": {key: np.array(value) for key, value in flatten(optimizer.state).items()},
        "step": step,
        "config": config,
    }


def restore(model: Any, optimizer: Any, state: dict[str, Any], where: str) -> int:
    """Load a :func:`snapshot` into ``model`` and ``optimizer``; returns its step."""
    import mlx.core as mx
    from mlx.utils import tree_unflatten

    here = {name: tuple(value.shape) for name, value in trainable_weights(model).items()}
    saved = {name: tuple(value.shape) for name, value in state["lora"].items()}
    if here != saved:
        raise CuaError(
            f"mlx: the newest checkpoint in {where} holds other weights ({len(saved)} tensors, {len(here)} here): "
            "it is from a run with other settings (lora_rank, lora_targets, model); give a fresh --output"
        )
    model.update(tree_unflatten([(name, mx.array(value)) for name, value in state["lora"].items()]))
    optimizer.state = tree_unflatten([(key, mx.array(value)) for key, value in state["optimizer"].items()])
    mx.eval(model.parameters(), optimizer.state)
    return int(state["step"])


def write_adapter(folder: Path, model: Any, num_layers: int, lora_parameters: dict[str, Any], base: str) -> Path:
    """mlx-lm's adapter folder for ``model``'s trainable weights; returns ``folder``."""
    import mlx.core as mx

    folder.mkdir(parents=True, exist_ok=True)
    mx.save_safetensors(str(folder / "adapters.safetensors"), trainable_weights(model))
    config = {
        "fine_tune_type": "lora",
        "num_layers": num_layers,
        "lora_parameters": lora_parameters,
        "model": base,  # mlx_lm.lora writes the base model's path here too
    }
    (folder / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
    return folder
