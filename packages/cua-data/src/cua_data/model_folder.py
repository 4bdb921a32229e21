"""A trained model as a folder that loads as it is, and the prompt settings it was trained with.

Every trainer writes its result here (SFT with ddp, mlx or trl; GRPO with LoRA or in full), and
``cua-bench run --agent hf --model FOLDER`` and transformers' ``from_pretrained`` load it with
nothing else at hand:

- the weights: the full model (``config.json`` and safetensors) or a LoRA adapter
  (``adapter_config.json``, which names its base; transformers loads the base and the adapter
  through peft);
- the base folder's own processor, tokenizer, chat template and generation config, copied as
  they were: a processor saved again after loading without torchvision lacks its video part, and
  transformers then refuses the folder ("Can't load video processor");
- ``cua_model.json``: the adapter family, history policy and adapter options the training prompts
  were rendered with. The ``hf`` agent renders with the same ones unless told otherwise, and a
  mismatch it is told is refused: a model trained on the last two turns, evaluated on all of them,
  scores what it was never shown.

A folder is written beside its final place and renamed into it, so a kill leaves the old folder
or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_data.adapters.history import HistoryPolicy

__all__ = ["SETTINGS_FILE", "PromptSettings", "merged", "prompt_settings", "read_settings", "write_model_folder"]

SETTINGS_FILE = "cua_model.json"
_WEIGHTS = (".safetensors", ".bin", ".pt", ".pth", ".npz", ".gguf")


@dataclass(frozen=True)
class PromptSettings:
    """How the model's prompts are rendered: the adapter family, its history policy and options."""

    adapter: str
    history: str = "full"  # a HistoryPolicy spec: full, last=N, images=N, last=N,images=M
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "history", HistoryPolicy.parse(self.history).spec())  # one spelling each

    def to_dict(self) -> dict[str, Any]:
        return {"adapter": self.adapter, "history": self.history, "options": dict(self.options)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PromptSettings:
        return cls(str(data["adapter"]), str(data.get("history", "full")), dict(data.get("options") or {}))


def read_settings(folder: str | Path) -> PromptSettings | None:
    """The settings a trainer recorded in ``folder``, or None (a folder no trainer of ours wrote)."""
    path = Path(folder) / SETTINGS_FILE
    if not path.is_file():
        return None
    try:
        return PromptSettings.from_dict(json.loads(path.read_text()))
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not prompt settings ({exc}); it is written by cua's trainers") from exc


def prompt_settings(
    folder: str | Path, adapter: str | None, history: str | None, options: dict[str, Any] | None
) -> PromptSettings:
    """The settings to evaluate ``folder`` with: what was asked, else what training recorded.

    Raises ``ValueError`` when an asked setting differs from the recorded one (naming both), and
    when no adapter is asked and none is recorded.
    """
    recorded = read_settings(folder) if Path(folder).is_dir() else None
    if recorded is None:
        if adapter is None:
            raise ValueError(f"--model {str(folder)!r} records no adapter ({SETTINGS_FILE}); pass --adapter")
        return PromptSettings(adapter, history or "full", options or {})
    asked = PromptSettings(
        adapter or recorded.adapter,
        recorded.history if history is None else history,
        recorded.options if options is None else options,
    )
    for name in ("adapter", "history", "options"):
        if getattr(asked, name) != getattr(recorded, name):
            raise ValueError(
                f"--model {str(folder)!r} was trained with {name} {getattr(recorded, name)!r} "
                f"({SETTINGS_FILE}), and this run asks for {getattr(asked, name)!r}: its prompts would not be "
                f"the ones it learned from. Leave the option out to use the recorded one"
            )
    return recorded


def write_model_folder(
    folder: str | Path, model: Any, base: str | Path, processor: Any, settings: PromptSettings
) -> Path:
    """Write ``model`` (a transformers model, or a peft model: its adapter alone) as a folder that loads.

    ``base`` is the folder (or hub id) the model was loaded from: its processor, tokenizer, chat
    template and generation config are copied as they were; from a hub id, ``processor`` is saved.
    """
    folder = Path(folder)
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    model.save_pretrained(str(partial))
    lora = (partial / "adapter_config.json").is_file()
    source = Path(base)
    if source.is_dir():
        for item in sorted(source.iterdir()):
            # A LoRA folder takes no config.json of the base: transformers would read it as a full model.
            # A merged model takes no adapter_config.json of its LoRA folder: it would read as an adapter.
            skip = (
                item.suffix in _WEIGHTS
                or item.name.endswith(".index.json")
                or item.name == ("config.json" if lora else "adapter_config.json")
            )
            if item.is_file() and not skip and item.name != SETTINGS_FILE and not (partial / item.name).exists():
                shutil.copy2(item, partial / item.name)
    else:
        processor.save_pretrained(str(partial))
    (partial / SETTINGS_FILE).write_text(json.dumps(settings.to_dict(), indent=2, sort_keys=True) + "\n")
    old = folder.with_name(folder.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if folder.exists():
        os.replace(folder, old)
    os.replace(partial, folder)
    shutil.rmtree(old, ignore_errors=True)
    return folder


def merged(folder: str | Path, output: str | Path) -> Path:
    """The LoRA model folder ``folder`` merged into its base's weights, as a full model folder at ``output``
    (a serving engine without LoRA support loads it, and it needs no base at hand)."""
    import transformers
    from peft import PeftModel

    source = Path(folder)
    config = source / "adapter_config.json"
    if not config.is_file():
        raise ValueError(f"{source} is not a LoRA model folder (no adapter_config.json): there is nothing to merge")
    settings = read_settings(source)
    if settings is None:
        raise ValueError(f"{source} records no prompt settings ({SETTINGS_FILE}): write it with cua's trainers")
    base = json.loads(config.read_text()).get("base_model_name_or_path")
    auto: Any = transformers.AutoModelForImageTextToText  # untyped library: Any keeps mypy strict here
    try:
        model = PeftModel.from_pretrained(auto.from_pretrained(base), str(source)).merge_and_unload()
    except OSError as exc:
        raise ValueError(f"{source}: cannot load its base {base!r} ({exc}); the adapter needs it to merge") from exc
    from cua_data.adapters.sft import load_processor

    return write_model_folder(output, model, source, load_processor(source), settings)
