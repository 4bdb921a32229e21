"""The language tower of a transformers checkpoint folder, in mlx-lm, with LoRA layers on it.

mlx-lm reads a Qwen2.5-VL folder (``model_type qwen2_5_vl``) as ``mlx_lm.models.qwen2_vl``: the text
tower only, the vision tower's weights dropped. Two settings that transformers 5 writes in new places
have to be handed over, or the load fails (``parameters not in model: language_model.lm_head.weight``):
``tie_word_embeddings`` sits at the top level of config.json rather than in ``text_config``, and
``rope_theta`` inside ``text_config.rope_parameters``. With them the text logits match transformers'
Qwen2_5_VLForConditionalGeneration (max abs diff 2.4e-7, measured). Folders of other text families
mlx-lm knows (qwen2, llama, ...) load as they are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cua_core import CuaError

__all__ = ["apply_lora", "load_text_model", "lora_parameters", "model_overrides"]


def model_overrides(folder: Path) -> dict[str, Any]:
    """The ``model_config`` mlx-lm needs for this folder (empty when it reads the folder as it is).

    Pass it to ``mlx_lm.load(folder, model_config=...)`` yourself to use a trained adapter:
    ``mlx_lm.load(folder, model_config=model_overrides(folder), adapter_path=OUTPUT/"adapter")``.
    """
    config = json.loads((Path(folder) / "config.json").read_text())
    text = config.get("text_config")
    if not isinstance(text, dict):
        return {}
    text = dict(text)
    text["tie_word_embeddings"] = bool(config.get("tie_word_embeddings", text.get("tie_word_embeddings", False)))
    rope = text.get("rope_parameters")
    if "rope_theta" not in text and isinstance(rope, dict) and "rope_theta" in rope:
        text["rope_theta"] = rope["rope_theta"]
    return {"text_config": text}


def load_text_model(folder: str | Path) -> tuple[Any, Any]:
    """(mlx model, mlx-lm's tokenizer wrapper) from a checkpoint folder, or a CuaError saying why not."""
    import mlx_lm.utils

    path = Path(folder)
    if not (path / "config.json").is_file():
        raise CuaError(f"mlx: {str(folder)!r} is not a checkpoint folder (no config.json there)")
    try:
        overrides = model_overrides(path)
        load: Any = mlx_lm.utils.load  # untyped library: Any keeps mypy strict here
        model, tokenizer = load(str(path), model_config=overrides)
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError) as exc:
        raise CuaError(
            f"mlx: mlx-lm cannot load the model in {str(folder)!r} (model_type {_model_type(path)!r}): {exc}. "
            "Give a transformers checkpoint folder of a family mlx-lm supports (Qwen2.5-VL's text tower, "
            "Qwen2, Llama, ...), or train it with --trainer ddp"
        ) from exc
    return model, tokenizer


def _model_type(path: Path) -> str:
    try:
        return str(json.loads((path / "config.json").read_text()).get("model_type", "?"))
    except (OSError, ValueError, AttributeError):
        return "?"


def lora_parameters(model: Any, targets: tuple[str, ...], rank: int, alpha: float) -> dict[str, Any]:
    """mlx-lm's ``lora_parameters`` for LoRA on every linear layer whose name ends in one of ``targets``.

    ``targets`` are module names as peft takes them (``q_proj``); mlx-lm wants paths inside a
    decoder layer (``self_attn.q_proj``), found here. ``scale`` is peft's ``alpha / rank``.
    """

    from mlx.nn.layers.linear import Linear

    layers = list(model.layers)
    keys = sorted(
        name
        for name, module in layers[0].named_modules()
        if isinstance(module, Linear) and name.rsplit(".", 1)[-1] in targets
    )
    if not keys:
        linear = sorted(n for n, m in layers[0].named_modules() if isinstance(m, Linear))
        raise CuaError(
            f"mlx: LoRA targets {', '.join(targets)} match no linear layer of the model's decoder layers "
            f"(they hold {', '.join(linear)}); set lora_targets to some of those"
        )
    return {"rank": rank, "scale": alpha / rank, "dropout": 0.0, "keys": keys}


def apply_lora(model: Any, parameters: dict[str, Any]) -> int:
    """Freeze the model and swap LoRA layers in, on every decoder layer; returns the layer count."""
    from mlx_lm.tuner import utils as tuner

    layers = len(model.layers)
    model.freeze()
    convert: Any = tuner.linear_to_lora_layers  # untyped library
    convert(model, layers, parameters)
    return layers
