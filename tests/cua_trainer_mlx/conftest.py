"""Fixtures for the MLX trainer's tests: the tiny random-weight Qwen2.5-VL and a small sim oracle
dataset (6 decisions), built once per session; nothing is downloaded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cua_bench_rl.sft import SFTConfig, oracle_dataset
from cua_data.tiny_models import build_tiny_qwen25_vl


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("mlx-model") / "tiny-qwen2.5-vl")


@pytest.fixture(scope="session")
def small_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return oracle_dataset(tmp_path_factory.mktemp("mlx-data"), tasks=("click-button", "login"), variants=1)


@pytest.fixture
def make_config(tiny_model: Path, small_data: Path, tmp_path: Path) -> Any:
    """SFTConfig for the mlx trainer on the tiny model; the aguvis adapter's prompts are short (~250
    tokens with the tiny tokenizer, against ~2,400 for qwen2.5-vl's), which keeps a step well under a second."""

    def make(**settings: Any) -> SFTConfig:
        defaults: dict[str, Any] = {
            "data": str(small_data),
            "model": str(tiny_model),
            "trainer": "mlx",
            "adapter": "aguvis",
            "output": str(tmp_path / "out"),
            "steps": 3,
            "micro_batch": 2,
            "lr": 1e-2,
            "lora_rank": 4,
            "lora_alpha": 8,
        }
        return SFTConfig(**{**defaults, **settings})

    return make
