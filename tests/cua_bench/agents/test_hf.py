"""The ``hf`` agent with a tiny Qwen2.5-VL of the real architecture, built here with random weights."""

from __future__ import annotations

from pathlib import Path

import pytest

from cua_bench.agents import hf
from cua_bench.runner import RunConfig, Runner
from cua_bench_tasks_sim import FOLDER as SIM
from cua_core.errors import CuaError
from cua_data.tiny_models import build_tiny_qwen25_vl


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("tiny-qwen25-vl"))


def test_a_local_model_plays_episodes_batched_across_environments(tiny_model: Path, tmp_path: Path) -> None:
    options = {"model": str(tiny_model), "adapter": "qwen2.5-vl", "batch_wait_s": 0.5, "max_new_tokens": 12}
    config = RunConfig(
        str(SIM / "click-button"), tmp_path / "run", agent="hf", agent_options=options, max_parallel=3, variants=3,
        max_steps=2,
    )  # fmt: skip
    summary = Runner(config).run()
    # Random weights write nonsense: every step is an unparseable output the model is told about,
    # never a crash, and each episode ends at its step limit with a real evaluation.
    assert summary["errors"] == 0 and summary["scored"] == 3
    usage = summary["agent_usage"]
    assert usage["model_calls"] == 6 and usage["parse_errors"] == 6
    engine = hf.engine(str(tiny_model), "auto", 8, 0.5, 12)
    assert sum(engine.batch_sizes) == 6
    assert max(engine.batch_sizes) > 1  # three environments' prompts answered by one generate call


def test_a_folder_that_is_not_a_model_fails_before_the_run(tmp_path: Path) -> None:
    with pytest.raises(CuaError, match="cannot load a transformers vision-language model"):
        Runner(RunConfig(str(SIM / "click-button"), tmp_path / "run", agent="hf",
                         agent_options={"model": str(tmp_path), "adapter": "qwen2.5-vl"}))  # fmt: skip
    assert not (tmp_path / "run").exists()


def test_a_trained_folder_is_played_with_the_prompt_settings_it_was_trained_with(
    tiny_model: Path, tmp_path: Path
) -> None:
    from cua_data.adapters.history import HistoryPolicy
    from cua_data.adapters.sft import load_processor
    from cua_data.model_folder import PromptSettings, write_model_folder

    transformers = pytest.importorskip("transformers")
    model = transformers.AutoModelForImageTextToText.from_pretrained(str(tiny_model))
    trained = write_model_folder(
        tmp_path / "model", model, tiny_model, load_processor(tiny_model), PromptSettings("qwen2.5-vl", "last=1")
    )
    agent = hf.HFAgent(model=str(trained), max_new_tokens=4)  # no --adapter, no --history: the recorded ones
    assert agent.adapter.name == "qwen2.5-vl" and agent.adapter.history == HistoryPolicy(last_n=1)
    with pytest.raises(CuaError, match="trained with history 'last=1'"):
        Runner(RunConfig(str(SIM / "click-button"), tmp_path / "run", agent="hf",
                         agent_options={"model": str(trained), "history": "full"}))  # fmt: skip
    assert not (tmp_path / "run").exists()
