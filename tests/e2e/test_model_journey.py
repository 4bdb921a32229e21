"""A model through the whole loop: the oracle's episode, SFT through the adapter's collation, the
trained weights served by the ``hf`` agent, and the task scored by the runner.

The model is a tiny Qwen2.5-VL of the real architecture with random weights, built here. It learns
one step (click-button, variant 0) well enough that greedy decoding writes the oracle's click as
Qwen2.5-VL writes it; the untrained model, as a control, scores 0 on the same episode.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import cua_bench
from cua_bench.runner import RunConfig, Runner
from cua_bench_tasks_sim import FOLDER as SIM
from cua_core.actions import action_from_dict
from cua_data.adapters.sft import collate, load_processor
from cua_data.registry import adapters
from cua_data.tiny_models import build_tiny_qwen25_vl

pytestmark = pytest.mark.slow


def _run(model: Path, output: Path) -> dict[str, object]:
    options = {"model": str(model), "adapter": "qwen2.5-vl", "max_new_tokens": 48}
    config = RunConfig(
        str(SIM / "click-button"), output, agent="hf", agent_options=options, max_parallel=1, variants=1, max_steps=1
    )
    return Runner(config).run()


def test_sft_on_an_oracle_step_then_the_hf_agent_scores_it(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForImageTextToText

    base = build_tiny_qwen25_vl(tmp_path / "base")
    adapter = adapters()["qwen2.5-vl"]()
    with cua_bench.make("sim/click-button") as env:
        obs, info = env.reset(options={"variant": 0})
        first = env.solve()["steps"][0]
    prompt = adapter.render(info["task"]["description"], [], obs["screenshot"])
    target = adapter.format_output([action_from_dict(a) for a in first["actions"]], (obs["width"], obs["height"]))
    batch = collate([(prompt, target)], load_processor(base))

    torch.manual_seed(0)
    model = AutoModelForImageTextToText.from_pretrained(base)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(300):
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if loss.item() < 0.01:
            break
    assert loss.item() < 0.05, f"the tiny model did not learn the step (loss {loss.item():.3f})"
    trained = tmp_path / "trained"
    shutil.copytree(base, trained)
    model.save_pretrained(trained)

    assert _run(base, tmp_path / "untrained")["success_rate"] == 0.0  # the control: random weights
    summary = _run(trained, tmp_path / "run")
    assert summary["success_rate"] == 1.0 and summary["errors"] == 0
    assert summary["agent_usage"]["parse_errors"] == 0  # type: ignore[index]
