"""examples/training/mlx_lora_finetune.py as `cua run FILE::finetune ARGS...` calls it: positional
arguments, in the space's work folder, building its own tiny model and oracle data there."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_EXAMPLE = Path(__file__).parents[2] / "examples" / "training" / "mlx_lora_finetune.py"


@pytest.mark.slow
def test_finetune_builds_what_it_needs_and_trains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.spec_from_file_location("mlx_lora_finetune", _EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    monkeypatch.chdir(tmp_path)
    for name in ("RANK", "WORLD_SIZE", "MLX_RANK", "MLX_WORLD_SIZE", "MLX_HOSTFILE"):
        monkeypatch.delenv(name, raising=False)

    summary = example.finetune(2, 1, None, None, 1, 0.0, "runs/mlx", "aguvis")  # short prompts: a fast step

    json.dumps(summary)  # what the pool's runner writes for `cua jobs result`
    assert (summary["trainer"], summary["world_size"], summary["start_step"], summary["steps"]) == ("mlx", 1, 0, 2)
    assert len(summary["losses"]) == 2 and summary["tokens"] > 0 and summary["tokens_per_s"] > 0
    assert (tmp_path / "runs" / "mlx" / "adapter" / "adapters.safetensors").is_file()
    assert (tmp_path / "tiny-qwen2.5-vl-rank0" / "config.json").is_file()
    printed = capsys.readouterr().out
    assert "step 1 loss" in printed and "step 2 loss" in printed
