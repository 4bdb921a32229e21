"""Fixtures for cua-trainer-trl's tests: the tiny random-weight Qwen2.5-VL and sim oracle data (nothing downloaded)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cua_bench_rl.sft import oracle_dataset
from cua_data.tiny_models import build_tiny_qwen25_vl

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is experimental in TRL 1.16


@pytest.fixture(scope="session")
def tiny_vl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random-weight Qwen2.5-VL checkpoint folder, shared by the session's tests (read-only)."""
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("tiny-qwen25-vl") / "model")


@pytest.fixture(scope="session")
def one_trajectory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sim oracle's click-button variant 0: one trajectory, two decisions (the click, then done), so
    every micro-batch of two is the same fixed batch."""
    return oracle_dataset(tmp_path_factory.mktemp("oracle-click"), tasks=("click-button",), variants=1)
