"""The SFT contract: settings, which examples each rank trains on, checkpoints, ranks, and the checks
that run before any rank starts."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from cua_bench_rl.checkpoints import FolderCheckpoints, checkpoints_in
from cua_bench_rl.cli import main
from cua_bench_rl.sft import SFTConfig, load_examples, micro_batches, oracle_dataset, preflight
from cua_bench_rl.world import World
from cua_core.errors import CuaError


def config(**overrides: object) -> SFTConfig:
    return SFTConfig.from_dict({"data": "d", "model": "m", **overrides})


def test_settings_are_checked_and_named() -> None:
    with pytest.raises(CuaError, match=r"unknown setting 'grad_acumulation'; did you mean 'grad_accumulation'"):
        config(grad_acumulation=4)
    with pytest.raises(CuaError, match="grad_accumulation must be a positive integer"):
        config(grad_accumulation=0)
    with pytest.raises(CuaError, match="lr must be positive"):
        config(lr=0)
    with pytest.raises(CuaError, match="data and model must be given"):
        SFTConfig.from_dict({})
    assert SFTConfig.from_dict(config(lora_targets=["q_proj"]).to_dict()) == config(lora_targets=("q_proj",))


@given(
    count=st.integers(1, 40),
    micro=st.integers(1, 4),
    accumulation=st.integers(1, 4),
    size=st.integers(1, 3),
    step=st.integers(0, 30),
)
def test_ranks_split_each_step_and_every_example_comes_round(
    count: int, micro: int, accumulation: int, size: int, step: int
) -> None:
    c = config(micro_batch=micro, grad_accumulation=accumulation)
    per_rank = [micro_batches(count, c, World(rank=r, size=size), step) for r in range(size)]
    for batches in per_rank:
        assert len(batches) == accumulation and all(len(b) == micro for b in batches)
    dealt = [i for batches in per_rank for b in batches for i in b]
    if len(dealt) <= count and (step * len(dealt)) % count + len(dealt) <= count:  # the step lies in one epoch
        assert len(set(dealt)) == len(dealt), "two ranks (or micro-batches) got the same example in one step"
    # An epoch deals every example exactly once, whatever the step size.
    epoch = [i for s in range(count) for r in range(size) for b in micro_batches(count, c, World(rank=r, size=size), s)
             for i in b][: count]  # fmt: skip
    assert sorted(epoch) == list(range(count))
    assert micro_batches(count, c, World(rank=0, size=size), step) == per_rank[0]  # a pure function: resumable


def test_folder_checkpoints_keep_the_newest_and_survive_a_kill_mid_write(tmp_path: Path) -> None:
    store = FolderCheckpoints(tmp_path / "ck", keep=2)
    assert store.latest() is None and store.load() is None
    for step in (1, 2, 3):
        store.save({"step": step}, step)
    assert store.latest() == 3 and store.load() == {"step": 3} and store.load(1) is None
    assert sorted(p.name for p in (tmp_path / "ck").iterdir()) == ["step-00000002.ckpt", "step-00000003.ckpt"]
    with pytest.raises(ValueError, match="int >= 0"):
        store.save({}, -1)
    # A writer killed while pickling a big state leaves the newest complete checkpoint as it was.
    script = textwrap.dedent(
        f"""
        import os, sys
        from cua_bench_rl.checkpoints import FolderCheckpoints
        class Slow:
            def __reduce__(self):
                print("writing", flush=True); os.kill(os.getpid(), 9)
        FolderCheckpoints({str(tmp_path / "ck")!r}).save({{"big": b"x" * 10**6, "slow": Slow()}}, 4)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGKILL and "writing" in done.stdout
    assert store.latest() == 3 and store.load() == {"step": 3}
    store.save({"step": 5}, 5)  # the leftover of the killed write does not get in the way
    assert store.latest() == 5 and pickle.loads((tmp_path / "ck" / "step-00000005.ckpt").read_bytes()) == {"step": 5}


def test_outside_a_pool_job_checkpoints_go_to_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUA_POOL_SPACE", raising=False)
    assert isinstance(checkpoints_in(tmp_path), FolderCheckpoints)


def test_world_from_the_launchers_variables() -> None:
    assert World.from_env({}) == World()
    torchrun = World.from_env(
        {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "7"}
    )
    assert (torchrun.rank, torchrun.size, torchrun.local_rank, torchrun.master_addr, torchrun.master_port) == (
        1,
        2,
        1,
        "10.0.0.1",
        7,
    )
    assert not torchrun.main
    mlx = World.from_env({"MLX_RANK": "1", "MLX_WORLD_SIZE": "2", "CUA_POOL_ATTEMPT": "3", "CUA_POOL_JOB": "j"})
    assert (mlx.rank, mlx.size, mlx.attempt, mlx.pool_job) == (1, 2, 3, "j")
    with pytest.raises(CuaError, match="RANK='one' is not an integer"):
        World.from_env({"RANK": "one"})
    with pytest.raises(CuaError, match="rank 2 of world size 2 is impossible"):
        World.from_env({"RANK": "2", "WORLD_SIZE": "2"})


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return oracle_dataset(tmp_path_factory.mktemp("oracle"), tasks=("click-button",), variants=2)


def test_examples_are_the_adapters_prompts_over_oracle_runs(oracle: Path, tmp_path: Path) -> None:
    examples = load_examples(config(data=str(oracle), history=1))
    assert len(examples) >= 2  # a click and the end of each episode
    prompt, target = examples[0]
    assert '"action": "left_click"' in target and prompt.images  # the screenshot is in the prompt
    again = oracle_dataset(oracle.parent, tasks=("click-button",), variants=2)  # a finished run is reused
    assert again == oracle and load_examples(config(data=str(again), history=1))[0][1] == target
    assert load_examples(config(data=str(oracle.parent), history=1))[0][1] == target  # the run folder reads as it


def test_mistakes_are_found_before_any_rank_starts(oracle: Path, tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{}")
    good = {"data": str(oracle), "model": str(tmp_path / "model")}
    with pytest.raises(CuaError, match=r"is not a checkpoint folder \(no config.json"):
        preflight(config(**{**good, "model": str(tmp_path)}))
    with pytest.raises(CuaError, match=r"is neither a dataset .* nor a run folder holding one"):
        preflight(config(**{**good, "data": str(tmp_path)}))
    preflight(config(**{**good, "data": str(oracle.parent)}))  # the run folder the dataset is in
    with pytest.raises(CuaError, match="unknown SFT trainer 'dpd'; did you mean 'ddp'"):
        preflight(config(**good, trainer="dpd"))
    with pytest.raises(CuaError, match="unknown adapter 'qwen9'"):
        preflight(config(**good, adapter="qwen9"))
    runner = CliRunner()
    result = runner.invoke(main, ["sft", "--data", str(tmp_path), "--model", str(tmp_path / "model"), "--nodes", "2"])
    assert result.exit_code == 1 and "nor a run folder holding one" in result.output  # not submitted to any pool
    result = runner.invoke(
        main, ["sft", "--data", str(oracle), "--model", str(tmp_path / "model"), "--trainer-option", "x"]
    )
    assert result.exit_code == 2 and "'x' is not KEY=VALUE" in result.output
    assert os.path.isdir(oracle)  # nothing already written was touched


def test_a_trainers_options_are_typed_by_its_options_before_a_job_is_submitted(
    oracle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cua_bench_rl import cli_sft

    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{}")
    good = {"data": str(oracle), "model": str(tmp_path / "model")}
    assert preflight(config(**good, options={"timeout_s": "30"})).options == {"timeout_s": 30.0}
    submitted: list[dict[str, object]] = []
    monkeypatch.setattr(cli_sft, "_on_pool", lambda settings, nodes, retries: submitted.append(settings) or 0)
    args = ["sft", "--data", good["data"], "--model", good["model"], "--trainer", "ddp", "--nodes", "2"]
    result = CliRunner().invoke(
        main, [*args, "--trainer-option", "link_delay_ms=5", "--trainer-option", "timeout_s=30"]
    )
    assert result.exit_code == 0, result.output
    assert submitted[0]["options"] == {"link_delay_ms": 5.0, "timeout_s": 30.0}  # what every rank of the job gets


@pytest.mark.parametrize("nodes", [[], ["--nodes", "2"]], ids=["here", "pool"])
@pytest.mark.parametrize(
    ("trainer", "option", "says"),
    [
        ("ddp", "link_dealy_ms=5", "sft --trainer ddp: unknown trainer option 'link_dealy_ms'; did you mean "
         "'link_delay_ms'? (its trainer options: link_delay_ms, link_jitter_ms, timeout_s)"),
        ("ddp", "timeout_s=soon", "sft --trainer ddp: --trainer-option timeout_s=soon: timeout_s must be a number"),
        ("mlx", "timeout_s=30", "sft --trainer mlx: unknown trainer option 'timeout_s' (its trainer options: "
         "link_delay_ms, link_jitter_ms)"),
    ],
)  # fmt: skip
def test_an_sft_trainers_bad_option_is_refused_before_anything_starts(
    nodes: list[str], trainer: str, option: str, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, an unknown option failed inside ``fit``, on every rank, once the ranks (or the job) had started.
    Now no folder is written and no process launched; the data and model are not even looked at yet."""
    launched: list[object] = []
    monkeypatch.setattr(subprocess, "run", lambda *args, **kwargs: launched.append(args))
    monkeypatch.setattr(subprocess, "Popen", lambda *args, **kwargs: launched.append(args))
    output = tmp_path / "out"
    args = ["sft", "--data", str(tmp_path / "no-data"), "--model", str(tmp_path / "no-model"), "--trainer", trainer]
    result = CliRunner().invoke(main, [*args, "--trainer-option", option, "--output", str(output), *nodes])
    assert result.exit_code == 1 and says in result.output, result.output
    assert not output.exists() and not launched and list(tmp_path.iterdir()) == []
