"""``cua-bench-rl pipeline`` on the tiny random-weight Qwen2.5-VL and sim: baseline, SFT on the oracle, GRPO,
held-out evaluations and the report; a kill -9 mid-pipeline and ``--resume``; the final model re-evaluated by
``cua-bench run --agent hf`` with the command the report records gives the report's figures."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.rl_configs import TRAINER

from cua_bench_rl.pipeline import PipelineConfig
from cua_core.errors import CuaError
from cua_data.tiny_models import build_tiny_qwen25_vl

BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("pipeline") / "model")


def command(model: Path, output: Path, *extra: str) -> list[str]:
    return [
        str(BIN / "cua-bench-rl"), "pipeline", "--model", str(model), "--env", "sim:click-button",
        "--held-out", "login", "--eval-variants", "2", "--max-steps", "2", "--sft-steps", "2", "--sft-variants", "2",
        "--sft-option", "micro_batch=1", "--sft-option", "checkpoint_every=1", "--sft-option", "threads=1",
        "--grpo-option", "steps=1", "--grpo-option", "group_size=2", "--grpo-option", "groups_per_step=1",
        "--grpo-option", "workers=2", "--grpo-option", "eval_workers=1", "--grpo-option", "train_variants=2",
        "--grpo-option", f"trainer={TRAINER}", "--grpo-option", 'trainer_options={"lr": 0.001, "lora": true}',
        "--policy-option", "max_size=320x200", "--policy-option", "max_new_tokens=8",
        "--output", str(output), *extra,
    ]  # fmt: skip


def test_a_pipeline_killed_mid_run_resumes_and_its_report_is_what_cua_bench_run_gives(
    tiny: Path, tmp_path: Path
) -> None:
    output = tmp_path / "pipeline"
    env = dict(os.environ)
    first = subprocess.Popen(command(tiny, output), env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    stages = output / "stages.json"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and first.poll() is None:
        if stages.is_file() and "sft" in json.loads(stages.read_text()):
            break
        time.sleep(0.2)
    assert first.poll() is None, first.stderr.read() if first.stderr else ""
    os.killpg(first.pid, signal.SIGKILL)  # the whole job, mid-run: the sft-eval stage had begun
    first.wait()
    done = json.loads(stages.read_text())
    assert set(done) == {"baseline", "sft-data", "sft"}
    baseline_mtime = (output / "baseline" / "summary.json").stat().st_mtime

    from cua_bench_rl import events
    from cua_core.events import BusAddresses, Forwarder, Subscriber

    with (
        Forwarder(BusAddresses.default()) as forwarder,
        Subscriber(forwarder.addresses.subscribe, ["rl.pipeline"]) as sub,
    ):
        time.sleep(0.3)  # the subscription reaches the forwarder before the run publishes
        again = subprocess.run(
            [str(BIN / "cua-bench-rl"), "pipeline", "--output", str(output), "--resume", "--json"],
            check=False, env=env, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        seen = []
        while (event := sub.recv(timeout=2)) is not None:
            seen.append(events.check(event.topic, event.body))
    assert again.returncode == 0, again.stderr[-3000:]
    assert "baseline done already, skipped" in again.stderr and "sft done already, skipped" in again.stderr
    assert (output / "baseline" / "summary.json").stat().st_mtime == baseline_mtime
    shown = [(e["stage"], e["status"]) for e in seen]  # what cua tui shows of the pipeline
    assert shown == [
        ("baseline", "skipped"), ("sft-data", "skipped"), ("sft", "skipped"), ("sft-eval", "started"),
        ("sft-eval", "done"), ("grpo", "started"), ("grpo", "done"), ("final", "started"), ("final", "done"),
        ("report", "done"),
    ]  # fmt: skip
    assert {e["folder"] for e in seen} == {str(output.resolve())} and len({e["run"] for e in seen}) == 1
    report = json.loads(again.stdout)
    assert set(json.loads(stages.read_text())) == {"baseline", "sft-data", "sft", "sft-eval", "grpo", "final"}
    assert list(report["held_out_variants"]["tasks"]) == ["click-button"]
    assert list(report["held_out_tasks"]["tasks"]) == ["login"]
    assert set(report["held_out_variants"]["success_rate"]) == {"baseline", "sft", "grpo"}
    assert report["grpo"]["steps"] == 1 and Path(report["models"]["grpo"]).is_dir()
    assert report["models"]["sft"] == str(output / "sft" / "model")
    assert "| click-button |" in (output / "report.md").read_text()

    # The round trip: the recorded command, run by hand, gives the report's figures.
    rerun = tmp_path / "rerun"
    replay = subprocess.run(
        [*report["commands"]["grpo"].split(), "--output", str(rerun), "--json"],
        check=False, env={**env, "PATH": f"{BIN}:{env.get('PATH', '')}"}, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr[-3000:]
    summary = json.loads(replay.stdout)
    for part in ("held_out_variants", "held_out_tasks"):
        for task, row in report[part]["tasks"].items():
            assert summary["tasks"][task]["success_rate"] == row["grpo"], (part, task)
    # The random-weight model scores 0 everywhere, so the figures alone would agree by chance: the model's
    # own answers, greedy, must be the same words in every episode, which needs the same model, prompts and view.
    assert answers(rerun) == answers(output / "final") and len(answers(rerun)) == 4


def answers(run: Path) -> dict[str, list[str]]:
    from cua_data.reader import DatasetReader

    found = {}
    for sample in DatasetReader(run / "trajectories"):
        said = [str(m.get("content")) for m in sample.messages if m.get("role") == "assistant"]
        found[str(sample.metadata.id).split("/", 1)[1]] = said  # less the run's own prefix
    return found


def test_settings_are_checked_before_any_stage_runs(tiny: Path, tmp_path: Path) -> None:
    with pytest.raises(CuaError, match="is not a folder"):
        PipelineConfig(model=str(tmp_path / "missing"))
    with pytest.raises(CuaError, match="grpo sets env, max_steps"):
        PipelineConfig(model=str(tiny), grpo={"env": "sim:login", "max_steps": 3})
    with pytest.raises(CuaError, match="sft sets history"):
        PipelineConfig(model=str(tiny), sft={"history": 3})
    with pytest.raises(CuaError, match="policy_options sets adapter"):
        PipelineConfig(model=str(tiny), policy_options={"adapter": "qwen3-vl"})
    with pytest.raises(CuaError, match="unknown setting"):
        PipelineConfig.from_dict({"model": str(tiny), "sft_stpes": 3})
    bad = subprocess.run(
        [*command(tiny, tmp_path / "p"), "--grpo-option", "group_sise=4"],
        check=False, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode != 0 and "group_sise" in bad.stderr and not (tmp_path / "p" / "baseline").exists()
