"""What a resumed MLX run needs, as plain numpy (picklable by any store), and mlx-lm's adapter folder.

A checkpoint is ``{"lora": {name: array}, "optimizer": {key: array}, "step": int, "config": dict}``:
the trainable (LoRA) weights and AdamW's whole state (``step``, ``learning_rate``, each weight's
``m`` and ``v``), so the resumed run takes exactly the steps the uninterrupted one would have. The
final weights are written the way ``mlx_lm.lora`` writes them (``adapters.safetensors`` and
``adapter_config.json``), so ``mlx_lm.load(..., adapter_path=...)`` and ``mlx_lm.generate
--adapter-path`` use them as they are; and as peft writes them (:class:`PeftFiles`), so
``OUTPUT/model`` loads in transformers and the ``hf`` agent like every other trainer's result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from cua_core import CuaError

__all__ = ["PeftFiles", "flatten", "restore", "snapshot", "trainable_weights", "write_adapter"]


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


class PeftFiles:
    """The mlx model's LoRA weights as the adapter folder peft writes, for ``write_model_folder``.

    mlx-lm's ``LoRALinear`` adds ``scale * (x @ lora_a) @ lora_b``, with ``lora_a`` (in, r) and
    ``lora_b`` (r, out); peft adds ``(alpha / r) * B @ A @ x`` with ``A`` (r, in) and ``B`` (out, r).
    So ``A = lora_a.T``, ``B = lora_b.T`` and, as ``scale`` is ``alpha / r`` (``lora_parameters``),
    ``lora_alpha`` is the run's alpha. mlx-lm names the text tower's layers ``...model.layers.N``;
    transformers names them ``model.language_model.layers.N`` in a vision-language checkpoint
    (``text_config`` in its config.json) and ``model.layers.N`` in a text one.
    """

    def __init__(self, model: Any, base: str, rank: int, alpha: float, keys: list[str]) -> None:
        config = json.loads((Path(base) / "config.json").read_text())
        self.prefix = "model.language_model." if isinstance(config.get("text_config"), dict) else "model."
        self.model, self.base, self.rank, self.alpha, self.keys = model, base, rank, alpha, keys

    def save_pretrained(self, folder: str) -> None:
        import mlx.core as mx
        import numpy as np
        from safetensors.numpy import save_file

        tensors = {}
        for name, value in trainable_weights(self.model).items():
            module, _, kind = name.rpartition(".")
            if kind not in ("lora_a", "lora_b") or "layers." not in module:
                raise CuaError(f"mlx: cannot write {name!r} as a peft weight (not a LoRA layer of a decoder layer)")
            inner = module[module.index("layers.") :]
            part = "lora_A" if kind == "lora_a" else "lora_B"
            tensors[f"base_model.model.{self.prefix}{inner}.{part}.weight"] = np.ascontiguousarray(
                np.array(value.astype(mx.float32)).T
            )
        save_file(tensors, str(Path(folder) / "adapter_model.safetensors"))
        layers = self.prefix.replace(".", r"\.") + r"layers\.\d+\."
        config = {
            "peft_type": "LORA", "base_model_name_or_path": str(self.base), "r": self.rank, "lora_alpha": self.alpha,
            "lora_dropout": 0.0, "bias": "none", "fan_in_fan_out": False, "inference_mode": True,
            "init_lora_weights": True, "use_rslora": False, "use_dora": False, "modules_to_save": None,
            "task_type": None,
            # only the text tower's layers: the vision tower has projections of the same names in some families
            "target_modules": layers + "(" + "|".join(k.replace(".", r"\.") for k in self.keys) + ")",
        }  # fmt: skip
        (Path(folder) / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
