"""What a GRPO checkpoint holds, and the checks that keep a resume exact.

A folder holds ``trainer.json`` (step, policy class, settings, the LoRA targets in effect), the
weights (``adapter/`` written by peft's ``save_pretrained`` for LoRA, so a server can load it as is;
``model.safetensors`` otherwise), ``optimizer.pt`` and the random generators' states. A resume
continues bit for bit only when the checkpoint's weights and optimiser state fit the new trainer,
so settings that change their shape are refused, naming the setting; the others (learning rate,
clipping, KL) may change on resume and the new values apply.
"""

from __future__ import annotations

import json
import logging
import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cua_core import CuaError

__all__ = [
    "FORMAT",
    "STATE_FILE",
    "check_compatible",
    "load_optimizer",
    "load_rng",
    "load_weights",
    "read_meta",
    "save_optimizer",
    "save_rng",
    "save_weights",
]

log = logging.getLogger(__name__)

FORMAT = 1
STATE_FILE = "trainer.json"
ADAPTER_DIR = "adapter"
MODEL_FILE = "model.safetensors"
OPTIMIZER_FILE = "optimizer.pt"
RNG_FILE = "rng.pt"
RNG_JSON = "rng.json"
# What decides the shape of the saved weights and optimiser state.
STRUCTURAL = ("lora", "lora_rank", "lora_alpha", "lora_targets", "policy")


def write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True))
    os.replace(tmp, path)


def read_meta(folder: Path) -> dict[str, Any]:
    path = folder / STATE_FILE
    if not path.is_file():
        raise CuaError(
            f"{folder} is not a GRPO checkpoint (no {STATE_FILE}); pass a folder that GRPOTrainer.save wrote"
        )
    meta: dict[str, Any] = json.loads(path.read_text())
    if meta.get("format") != FORMAT:
        raise CuaError(f"{path}: checkpoint format {meta.get('format')!r}, this trainer reads format {FORMAT}")
    return meta


def check_compatible(saved: dict[str, Any], current: dict[str, Any], folder: Path) -> None:
    """Refuse a checkpoint whose weights or optimiser state cannot fit; log the settings that merely changed."""
    for name in STRUCTURAL:
        if saved.get(name) != current.get(name):
            raise CuaError(
                f"checkpoint {folder} was saved with {name}={saved.get(name)!r}, this trainer has "
                f"{name}={current.get(name)!r}: its weights and optimiser state do not fit; resume with the "
                "checkpoint's setting or start a new run"
            )
    before, after = saved.get("config", {}), current.get("config", {})
    changed = sorted(k for k in set(before) | set(after) if k not in STRUCTURAL and before.get(k) != after.get(k))
    for key in changed:
        log.info("resuming %s with %s=%r (the checkpoint had %r)", folder, key, after.get(key), before.get(key))


def save_weights(folder: Path, module: torch.nn.Module, lora: bool) -> None:
    if lora:
        module.save_pretrained(str(folder / ADAPTER_DIR))  # type: ignore[operator]  # peft model
        return
    from safetensors.torch import save_model

    save_model(module, str(folder / MODEL_FILE))  # handles tied (shared) tensors


def load_weights(folder: Path, module: torch.nn.Module, lora: bool) -> None:
    from safetensors.torch import load_file, load_model

    if lora:
        from peft import set_peft_model_state_dict

        path = folder / ADAPTER_DIR / "adapter_model.safetensors"
        if not path.is_file():
            raise CuaError(f"checkpoint {folder} has no LoRA adapter ({path} is missing)")
        result = set_peft_model_state_dict(module, load_file(str(path)))
        unexpected = list(getattr(result, "unexpected_keys", []) or [])
        missing = [k for k in getattr(result, "missing_keys", []) or [] if "lora_" in k]
        if unexpected or missing:
            raise CuaError(
                f"checkpoint {folder}: the adapter does not fit this model "
                f"(unexpected {unexpected[:3]}, missing {missing[:3]})"
            )
        return
    path = folder / MODEL_FILE
    if not path.is_file():
        raise CuaError(f"checkpoint {folder} has no model weights ({path} is missing)")
    try:
        load_model(module, str(path), strict=True)
    except RuntimeError as exc:
        raise CuaError(f"checkpoint {folder}: the saved weights do not fit this model: {exc}") from exc


def save_optimizer(folder: Path, optimizer: torch.optim.Optimizer) -> None:
    torch.save(optimizer.state_dict(), folder / OPTIMIZER_FILE)


def load_optimizer(folder: Path, optimizer: torch.optim.Optimizer) -> None:
    state = torch.load(folder / OPTIMIZER_FILE, weights_only=True)
    try:
        optimizer.load_state_dict(state)
    except ValueError as exc:
        raise CuaError(f"checkpoint {folder}: the optimiser state does not fit this model: {exc}") from exc


def save_rng(folder: Path) -> None:
    state: dict[str, Any] = {"torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    torch.save(state, folder / RNG_FILE)
    kind, keys, pos, has_gauss, gauss = np.random.get_state(legacy=True)
    version, internal, gauss_next = random.getstate()
    write_json(
        folder / RNG_JSON,
        {
            "python": [version, list(internal), gauss_next],
            "numpy": [kind, [int(k) for k in keys], int(pos), int(has_gauss), float(gauss)],
        },
    )


def load_rng(folder: Path) -> None:
    """Restore the generators, so sampling after a resume matches an uninterrupted run."""
    if not (folder / RNG_FILE).is_file():
        log.warning("checkpoint %s has no random state: sampling after the resume will differ", folder)
        return
    state = torch.load(folder / RNG_FILE, weights_only=True)
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    saved = json.loads((folder / RNG_JSON).read_text())
    version, internal, gauss_next = saved["python"]
    random.setstate((version, tuple(internal), gauss_next))
    kind, keys, pos, has_gauss, gauss = saved["numpy"]
    np.random.set_state((kind, np.asarray(keys, dtype=np.uint32), pos, has_gauss, gauss))
