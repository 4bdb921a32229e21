"""A trained model as a folder that loads as it is (``cua_data.model_folder``), on a tiny Qwen2.5-VL of
the real architecture with random weights, built here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cua_data.adapters.history import HistoryPolicy
from cua_data.adapters.sft import load_processor
from cua_data.model_folder import PromptSettings, merged, prompt_settings, read_settings, write_model_folder
from cua_data.tiny_models import build_tiny_qwen25_vl

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
peft = pytest.importorskip("peft")

SETTINGS = PromptSettings("qwen2.5-vl", "last=2")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("tiny-qwen25"))


def load(folder: Path) -> Any:
    return transformers.AutoModelForImageTextToText.from_pretrained(str(folder))


def with_lora(base: Path) -> Any:
    torch.manual_seed(0)
    config = peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
    return peft.get_peft_model(load(base), config)  # B is not zero: the adapter changes the outputs


def logits(model: Any) -> Any:
    with torch.no_grad():
        return model(input_ids=torch.tensor([[1, 2, 3, 4, 5]])).logits


def test_history_policies_spell_themselves_as_they_parse() -> None:
    for text in ("full", "last=2", "images=3", "last=2,images=1"):
        assert HistoryPolicy.parse(text).spec() == text
    assert PromptSettings("qwen2.5-vl", "").history == "full"


def test_a_full_model_folder_loads_with_its_processor_and_settings(base: Path, tmp_path: Path) -> None:
    model = load(base)
    folder = write_model_folder(tmp_path / "model", model, base, load_processor(base), SETTINGS)
    assert torch.equal(logits(load(folder)), logits(model))
    assert load_processor(folder).image_processor is not None
    for name in ("preprocessor_config.json", "processor_config.json", "tokenizer.json", "chat_template.jinja"):
        assert (folder / name).read_bytes() == (base / name).read_bytes()  # every part, as the base had it
    assert read_settings(folder) == SETTINGS
    assert not (tmp_path / "model.partial").exists()


def test_a_lora_folder_loads_through_transformers_and_merges_to_the_same_model(base: Path, tmp_path: Path) -> None:
    trained = with_lora(base)
    folder = write_model_folder(tmp_path / "model", trained, base, load_processor(base), SETTINGS)
    names = {p.name for p in folder.iterdir()}
    assert {"adapter_config.json", "adapter_model.safetensors", "cua_model.json", "chat_template.jinja"} <= names
    assert "config.json" not in names  # transformers would read the folder as a full model without weights
    assert torch.allclose(logits(load(folder)), logits(trained), atol=1e-5)
    full = merged(folder, tmp_path / "merged")
    assert not (full / "adapter_config.json").exists() and read_settings(full) == SETTINGS
    assert torch.allclose(logits(load(full)), logits(trained), atol=1e-4)
    assert not torch.allclose(logits(load(full)), logits(load(base)), atol=1e-4)  # the adapter is in it


def test_a_folder_is_replaced_whole(base: Path, tmp_path: Path) -> None:
    folder = tmp_path / "model"
    write_model_folder(folder, with_lora(base), base, load_processor(base), SETTINGS)
    write_model_folder(folder, load(base), base, load_processor(base), PromptSettings("qwen2.5-vl"))
    assert not (folder / "adapter_config.json").exists() and read_settings(folder) == PromptSettings("qwen2.5-vl")


def test_a_processor_saved_without_its_video_part_still_loads(base: Path, tmp_path: Path) -> None:
    # What the ddp trainer wrote before: the processor loaded images-only, saved again as it was.
    old = tmp_path / "old"
    load(base).save_pretrained(str(old))
    load_processor(base).save_pretrained(str(old))
    with pytest.raises(OSError, match="video"):
        transformers.AutoProcessor.from_pretrained(str(old))
    assert load_processor(old).image_processor is not None


def test_evaluation_uses_the_recorded_settings_and_refuses_others(base: Path, tmp_path: Path) -> None:
    folder = write_model_folder(tmp_path / "model", load(base), base, load_processor(base), SETTINGS)
    assert prompt_settings(folder, None, None, None) == SETTINGS
    assert prompt_settings(folder, "qwen2.5-vl", "last=2", {}) == SETTINGS
    with pytest.raises(ValueError, match=r"trained with history 'last=2'.*asks for 'full'"):
        prompt_settings(folder, None, "full", None)
    with pytest.raises(ValueError, match=r"trained with adapter 'qwen2\.5-vl'.*asks for 'uitars'"):
        prompt_settings(folder, "uitars", None, None)
    with pytest.raises(ValueError, match="records no adapter"):
        prompt_settings(base, None, None, None)
    assert prompt_settings(base, "qwen2.5-vl", None, None) == PromptSettings("qwen2.5-vl")
    (folder / "cua_model.json").write_text(json.dumps({"history": "full"}))
    with pytest.raises(ValueError, match="not prompt settings"):
        read_settings(folder)
