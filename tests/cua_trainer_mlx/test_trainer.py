"""MLXTrainer in one process: learning, what it changes, resuming, the adapter it writes, its errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mlx.core as mx
import numpy as np
import pytest
from cua_trainer_mlx import model_overrides
from cua_trainer_mlx.checkpoint import flatten, trainable_weights
from cua_trainer_mlx.data import encode
from cua_trainer_mlx.model import apply_lora, load_text_model, lora_parameters
from cua_trainer_mlx.trainer import MLXTrainer

from cua_bench_rl.checkpoints import FolderCheckpoints
from cua_bench_rl.registry import sft_trainers
from cua_bench_rl.sft import SFTConfig, load_examples, run_sft
from cua_bench_rl.world import World
from cua_core.errors import CuaError


def _fit(config: SFTConfig, store: Any = None) -> tuple[MLXTrainer, Any]:
    trainer = MLXTrainer(config, World(), store or FolderCheckpoints(Path(config.output) / "checkpoints"))
    return trainer, trainer.fit()


def test_mlx_is_registered() -> None:
    assert sft_trainers()["mlx"] is MLXTrainer


def test_the_loss_covers_the_target_and_its_end_of_turn_token_only(make_config: Any) -> None:
    config = make_config()
    _, tokenizer = load_text_model(config.model)
    prompt, target = load_examples(config)[0]
    row = encode((prompt, target), tokenizer)
    assert tokenizer.decode(row.ids[row.start : row.stop]) == target + "<|im_end|>"
    assert "<|image_pad|>" not in tokenizer.decode(row.ids)  # text only: the screenshot is left out
    with pytest.raises(CuaError, match="over max_length"):
        encode((prompt, target), tokenizer, max_length=row.stop - 1)


def test_loss_falls_on_a_fixed_batch_and_only_lora_weights_change(make_config: Any) -> None:
    config = make_config(micro_batch=6, steps=3)  # the dataset's 6 decisions: every step the same batch
    trainer, result = _fit(config)
    assert len(result.losses) == 3 and all(np.isfinite(result.losses))
    assert result.losses[-1] < result.losses[0] - 0.05, result.losses  # measured: 6.12 -> 5.93
    _, tokenizer = load_text_model(config.model)
    lengths = [len(encode(example, tokenizer).ids) for example in load_examples(config)]
    assert len(lengths) == 6 and result.tokens == 3 * sum(lengths)  # every non-padding token, no padding
    assert result.exchanges == 0

    fresh, _ = load_text_model(config.model)
    mx.random.seed(config.seed)
    apply_lora(fresh, lora_parameters(fresh, config.lora_targets, config.lora_rank, config.lora_alpha))
    before, after = flatten(fresh.parameters()), flatten(trainer.model.parameters())
    lora = set(trainable_weights(fresh))
    assert lora == set(trainable_weights(trainer.model)) and lora
    assert all(name.rsplit(".", 1)[-1] in ("lora_a", "lora_b") for name in lora)
    assert all(mx.array_equal(before[name], after[name]).item() for name in before if name not in lora)
    changed = [name for name in lora if not mx.array_equal(before[name], after[name]).item()]
    assert sorted(changed) == sorted(lora)


def test_the_adapter_folder_loads_in_mlx_lm(make_config: Any) -> None:
    import mlx_lm

    config = make_config(steps=2)
    trainer, result = _fit(config)
    assert result.adapter == str(Path(config.output) / "adapter")
    saved = json.loads((Path(result.adapter) / "adapter_config.json").read_text())
    assert saved["fine_tune_type"] == "lora" and saved["lora_parameters"]["rank"] == 4
    loaded, _ = mlx_lm.load(config.model, model_config=model_overrides(Path(config.model)), adapter_path=result.adapter)
    ids = mx.array([[5, 6, 7, 8, 9]])
    assert mx.allclose(loaded(ids), trainer.model(ids), atol=1e-5).item()
    fresh, _ = load_text_model(config.model)
    assert not mx.allclose(fresh(ids), loaded(ids), atol=1e-5).item()  # the adapter does something


def test_the_model_folder_loads_in_transformers_and_computes_what_mlx_does(make_config: Any) -> None:
    """OUTPUT/model is a peft adapter over the base, as every trainer's result: transformers' text logits with it
    equal the trained mlx model's (the two stacks agree to 2.4e-7 on the base), and the hf agent loads it."""
    import numpy as np
    import torch
    import transformers

    from cua_bench.agents.hf import HFAgent
    from cua_data.model_folder import read_settings

    config = make_config(steps=2)
    trainer, _ = _fit(config)
    folder = Path(config.output) / "model"
    assert (folder / "adapter_config.json").is_file() and not (folder / "config.json").exists()
    assert read_settings(folder) == config.prompt_settings()
    loaded = transformers.AutoModelForImageTextToText.from_pretrained(str(folder), dtype=torch.float32).eval()
    ids = [[5, 6, 7, 8, 9]]
    with torch.no_grad():
        theirs = loaded(input_ids=torch.tensor(ids)).logits.numpy()
    ours = np.array(trainer.model(mx.array(ids)))
    assert np.allclose(theirs, ours, atol=1e-4), float(np.abs(theirs - ours).max())
    base = transformers.AutoModelForImageTextToText.from_pretrained(config.model, dtype=torch.float32).eval()
    with torch.no_grad():
        assert not np.allclose(base(input_ids=torch.tensor(ids)).logits.numpy(), ours, atol=1e-4)  # it does something
    HFAgent(model=str(folder))


def test_a_new_trainer_resumes_from_the_newest_checkpoint(make_config: Any, tmp_path: Path) -> None:
    store = FolderCheckpoints(tmp_path / "ckpt")
    _, first = _fit(make_config(steps=3, checkpoint_every=1), store)
    assert store.latest() == 3 and first.start_step == 0
    resumed, second = _fit(make_config(steps=5, checkpoint_every=1), store)
    assert (second.start_step, second.steps, len(second.losses)) == (3, 5, 2)
    assert store.latest() == 5 and store.load()["step"] == 5

    # The resumed run took exactly the steps an uninterrupted one takes (weights and AdamW state restored).
    straight, whole = _fit(make_config(steps=5, output=str(tmp_path / "straight")))
    assert whole.losses[3:] == pytest.approx(second.losses, abs=1e-5)
    a, b = trainable_weights(resumed.model), trainable_weights(straight.model)
    assert all(mx.allclose(a[name], b[name], atol=1e-6).item() for name in a)


def test_a_checkpoint_of_other_settings_is_refused(make_config: Any, tmp_path: Path) -> None:
    store = FolderCheckpoints(tmp_path / "ckpt")
    _fit(make_config(steps=1), store)
    with pytest.raises(CuaError, match="other settings"):
        _fit(make_config(steps=2, lora_rank=2), store)


def test_a_bad_model_path_is_refused_before_training(make_config: Any, tmp_path: Path) -> None:
    with pytest.raises(CuaError, match="not a checkpoint folder"):
        run_sft(make_config(model=str(tmp_path / "nowhere")))
    odd = tmp_path / "odd-model"
    odd.mkdir()
    (odd / "config.json").write_text(json.dumps({"model_type": "no-such-family"}))
    with pytest.raises(
        CuaError, match=r"mlx-lm cannot load the model in '.*odd-model' \(model_type 'no-such-family'\)"
    ):
        run_sft(make_config(model=str(odd)))


def test_settings_the_trainer_cannot_honour_are_refused(make_config: Any) -> None:
    with pytest.raises(CuaError, match=r"unknown trainer option.*colour"):
        _fit(make_config(options={"colour": "red"}))
    with pytest.raises(CuaError, match="LoRA adapters only"):
        _fit(make_config(lora=False))
    with pytest.raises(CuaError, match=r"match no linear layer.*self_attn\.q_proj"):
        _fit(make_config(lora_targets=("qkv",)))
