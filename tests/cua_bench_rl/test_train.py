"""The training loop end to end on real sim env servers, with a tiny policy: the run folder, events,
resume after a kill -9, refusals, and the staleness bound."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.rl_configs import POLICY, TRAINER, small_train_config

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.checkpoints import newest_checkpoint
from cua_bench_rl.curves import read_curve
from cua_bench_rl.train import train
from cua_core.errors import CuaError

CLI = [sys.executable, "-m", "cua_bench_rl.cli"]


@pytest.mark.slow
def test_a_run_fills_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "trainer.jsonl"
    monkeypatch.setenv("CUA_TEST_TRAINER_LOG", str(log))
    steps: list[dict[str, object]] = []
    result = train(small_train_config(max_staleness=0), tmp_path / "run", on_step=steps.append)
    folder = tmp_path / "run"
    assert result.steps == 3 and result.status == "finished"
    assert [row["step"] for row in steps] == [1, 2, 3]
    assert {"config.json", "curve.csv", "curve.png", "summary.json", "checkpoints", "buffer"} <= {
        p.name for p in folder.iterdir()
    }
    curve = read_curve(folder / "curve.csv")
    assert [r["step"] for r in curve] == [0, 1, 2, 3, 3]  # start evaluation, three steps, end evaluation
    assert curve[0]["eval_success"] is not None and curve[-1]["eval_success"] is not None
    assert all(r["episodes"] == 8 for r in curve[1:4])  # 2 groups of 4
    found = newest_checkpoint(folder / "checkpoints")
    assert found is not None and found[1]["step"] == 3
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["steps"] == 3 and summary["final_eval"]["success"] == result.final_eval["success"]  # type: ignore[index]
    # With max_staleness 0 every group trained on was sampled by the very version being trained.
    for line in log.read_text().splitlines():
        record = json.loads(line)
        assert record["versions"] and all(v == record["step"] for v in record["versions"]), record


@pytest.mark.slow
def test_the_staleness_bound_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "trainer.jsonl"
    monkeypatch.setenv("CUA_TEST_TRAINER_LOG", str(log))
    train(small_train_config(max_staleness=1, steps=6, groups_per_step=1, workers=3), tmp_path / "run")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(records) == 6
    assert all(record["step"] - v <= 1 for record in records for v in record["versions"]), records
    # and the bound is not vacuous: rollouts ran ahead, so some groups were older than the step
    assert any(v < record["step"] for record in records for v in record["versions"]) or all(
        record["step"] == 0 for record in records
    )


def test_settings_are_checked_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(CuaError, match="no policy 'nothing'"):
        train(small_train_config(policy="nothing"), tmp_path / "a")
    with pytest.raises(CuaError, match="unknown option 'sidee'; did you mean 'side'"):
        train(small_train_config(policy_options={"sidee": 3}), tmp_path / "b")
    with pytest.raises(CuaError, match="trainer options: unknown trainer option"):
        train(small_train_config(trainer_options={"learning_rate": 1}), tmp_path / "c")
    with pytest.raises(CuaError, match="no run to resume"):
        train(small_train_config(), tmp_path / "d", resume=True)
    assert list(tmp_path.iterdir()) == []  # nothing was written: the corrected command starts afresh


@pytest.mark.slow
def test_kill_9_of_the_trainer_then_resume_goes_on_counting(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    args = [
        "train", "--env", "sim:click-button", "--policy", POLICY, "--trainer", TRAINER, "--group-size", "4",
        "--groups-per-step", "2", "--workers", "2", "--eval-workers", "1", "--eval-episodes", "2",
        "--train-variants", "6", "--checkpoint-every", "1", "--output", str(folder),
    ]  # fmt: skip
    proc = subprocess.Popen([*CLI, *args, "--steps", "1000"], cwd=tmp_path, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            found = newest_checkpoint(folder / "checkpoints")
            if found is not None and found[1]["step"] >= 2:
                break
            assert proc.poll() is None, "the run stopped by itself"
            time.sleep(0.1)
        else:
            pytest.fail("no second checkpoint within 120 s")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    found = newest_checkpoint(folder / "checkpoints")
    assert found is not None
    killed_at = found[1]["step"]
    # Changed settings are refused, naming the setting; budgets may change.
    refused = subprocess.run(
        check=False, args=[*CLI, *args, "--group-size", "8", "--resume"], cwd=tmp_path, capture_output=True, text=True
    )
    assert refused.returncode == 1 and "group_size: 4 -> 8" in refused.stderr
    resumed = subprocess.run(
        check=False,
        args=[*CLI, *args, "--steps", str(killed_at + 2), "--resume"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["steps"] == killed_at + 2
    steps = [int(r["step"]) for r in read_curve(folder / "curve.csv") if r["reward_mean"] is not None]
    assert steps == list(range(1, killed_at + 3)), steps  # no step twice, none missing


# The CLI in a fresh interpreter, as a user runs it: its exit status, whether torch was imported, its last line.
_FRESH = """
import sys
from click.testing import CliRunner
from cua_bench_rl.cli import main
result = CliRunner().invoke(main, sys.argv[1:])
print(result.exit_code, "torch" in sys.modules, result.output.strip().splitlines()[-1])
"""


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--trainer-option", "lr=abc"], "--trainer-option lr=abc: lr must be a number (float)"),
        (["--trainer-option", "lrr=3"], "unknown trainer option 'lrr'; did you mean 'lr'?"),
        # grpo's Config (GRPOConfig) checks its choices and ranges; the trainer's class imports no torch
        (["--trainer-option", "advantage_scale=groups"], "advantage_scale must be one of group, batch, none"),
        (["--trainer-option", "micro_batch=0"], "trainer options: micro_batch must be at least 1, got 0"),
        (["--trainer", "grop"], "no trainer 'grop'; installed: grpo"),
        (["--env", "nosuchbackend:click-button"], "unknown backend 'nosuchbackend' (known backends: sim, local"),
        (["--placement", "rey"], "unknown placement 'rey'; installed: here, pool, ray"),
        (["--placement", "ray:"], "nothing after the colon"),
        (["--backend-option", "per_sever=2"], "backend 'sim' has no option 'per_sever'; did you mean 'per_server'?"),
        (["--backend-option", "per_server=many"], "--backend-option per_server=many: per_server must be an integer"),
        (["--env", "sim:clik-button"], "no installed taskset has a task 'clik-button'; did you mean sim/click-button?"),
        (["--env", "sim:sim/clik-button"], "no task matches 'clik-button'; did you mean 'click-button'?"),
        # pixel-click's class lives with torch: its constructor is read from the source, not imported
        (["--policy-option", "hiden=3"], "policy 'pixel-click': unknown option 'hiden'"),
        (["--policy-option", "width=abc"], "--policy-option width=abc: width must be an integer (int)"),
    ],
)
def test_a_bad_option_or_backend_fails_before_torch_is_imported_and_leaves_nothing(
    tmp_path: Path, args: list[str], says: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _FRESH, "train", *args, "--output", str(tmp_path / "run")],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    code, imported, line = done.stdout.split(" ", 2)
    assert (code, imported) == ("1", "False") and says in line, done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == []


def test_policy_options_are_typed_by_the_class_a_lazy_factory_builds(tmp_path: Path) -> None:
    """pixel-click is registered as ``def _pixel_click(**options)``: its class's signature is what counts."""
    with pytest.raises(CuaError, match=r"policy 'pixel-click': unknown option 'hiden' \(its options: width, height"):
        train(small_train_config(policy="pixel-click", policy_options={"hiden": 3}), tmp_path / "a")
    with pytest.raises(CuaError, match="--policy-option width=abc: width must be an integer"):
        train(small_train_config(policy="pixel-click", policy_options={"width": "abc"}), tmp_path / "b")
    assert list(tmp_path.iterdir()) == []


def test_train_help_shows_the_defaults() -> None:
    from click.testing import CliRunner

    from cua_bench_rl.cli import main

    text = CliRunner().invoke(main, ["train", "--help"], terminal_width=200, max_content_width=200).output
    for default in ("sim:click-button", "pixel-click", "grpo", "uniform"):
        assert f"[default: {default}]" in text, text
    assert "Rollouts per (task, variant): a GRPO group.  [default: 8; x>=2]" in text


def test_resume_without_a_run_is_refused_by_the_cli(tmp_path: Path) -> None:
    done = subprocess.run(check=False, args=[*CLI, "train", "--resume"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1 and "--resume needs --output" in done.stderr
    done = subprocess.run(
        check=False, args=[*CLI, "train", "--output", "x", "--resume"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 1 and "holds no run to resume" in done.stderr


def test_an_unknown_task_sampling_is_refused_by_the_cli_with_the_choices(tmp_path: Path) -> None:
    args = [*CLI, "train", "--env", "sim:click-button", "--policy", "pixel-click", "--task-sampling", "hardest"]
    done = subprocess.run(check=False, args=args, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "'hardest' is not one of 'uniform', 'difficulty', 'variant-difficulty'" in done.stderr
    assert not (tmp_path / "runs").exists()  # refused before a run folder was made


def test_backend_options_reach_the_workers_and_are_recorded_typed(tmp_path: Path) -> None:
    """``per_server=2``: the run's three sim environments (two rollout workers, one held-out) are served by two
    sim host processes, no env server of their own; the variable is this process's only while the run lasts."""
    seen: list[tuple[int, int]] = []
    config = small_train_config(steps=1, backend_options={"per_server": "2"})
    train(
        config, tmp_path / "run", on_step=lambda row: seen.append((len(_env_servers()), len(_env_servers(b"sim_host"))))
    )
    assert seen == [(0, 2)]
    assert "CUA_SIM_PER_SERVER" not in os.environ
    assert json.loads((tmp_path / "run" / "config.json").read_text())["backend_options"] == {"per_server": 2}


def _env_servers(module: bytes = b"cua_bench.server") -> list[int]:
    """This process's env-server children (or those running ``module``), oldest first (the rollout workers
    start before the eval ones)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == os.getpid() and module in cmdline:
            found.append(int(entry.name))
    return sorted(found)


@pytest.mark.slow
def test_kill_9_of_an_env_worker_mid_run_is_replaced_counted_and_training_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cua_core import events as bus_events

    published: list[tuple[str, dict[str, object]]] = []
    monkeypatch.setattr(
        bus_events.BestEffortPublisher, "publish", lambda self, topic, body: published.append((topic, body))
    )
    killed: list[int] = []

    def kill_one(row: dict[str, object]) -> None:
        if row["step"] == 1:
            victim = _env_servers()[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)
            # Rollouts go on while the trainer waits here; they soon meet the dead worker.
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not any(t == "rl.worker.replaced" for t, _ in published):
                time.sleep(0.05)

    result = train(small_train_config(steps=4, max_steps=3), tmp_path / "run", on_step=kill_one)
    assert killed and result.steps == 4 and result.status == "finished"
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["faults"]["replaced"] >= 1, summary
    replaced = [body for topic, body in published if topic == "rl.worker.replaced"]
    assert replaced and replaced[0]["outcome"] in ("retried", "dropped", "abandoned") and replaced[0]["replaced"] == 1


@pytest.mark.slow
def test_a_run_publishes_its_steps_and_environments_and_names_itself_in_its_folder(tmp_path: Path) -> None:
    from cua_bench.run_marker import read_run_marker
    from cua_bench_rl import events
    from cua_core.events import BusAddresses, Forwarder, Subscriber

    with (
        Forwarder(BusAddresses.default()) as forwarder,
        Subscriber(forwarder.addresses.subscribe, ["rl", "env"]) as sub,
    ):
        time.sleep(0.3)  # the subscription reaches the forwarder before the run publishes
        train(small_train_config(steps=2), tmp_path / "run")
        seen = []
        while (event := sub.recv(timeout=2)) is not None:
            seen.append(event)
    for event in seen:
        events.check_bus(event.topic, event.body)
    topics = [e.topic for e in seen]
    assert topics[0] == events.RUN_STARTED and topics.count(events.STEP_DONE) == 2 and events.RUN_FINISHED in topics
    marker = read_run_marker(tmp_path / "run")
    assert marker is not None and marker["kind"] == "rl"
    assert {e.body["run"] for e in seen} == {marker["run"]}
    assert seen[0].body["folder"] == str((tmp_path / "run").resolve())
    stepped = {e.body["env"] for e in seen if e.topic == "env.step"}
    assert {"w0", "w1", "e0"} <= stepped  # rollouts and held-out evaluation alike
    assert {e.body["env"] for e in seen if e.topic == "env.closed"} == {"w0", "w1", "e0"}


class _Buffer:
    """Hands out the groups given, in order, a few per call."""

    def __init__(self, rewards: list[list[float]]) -> None:
        self.groups = [_group(r) for r in rewards]
        self.calls = 0

    def sample(self, count: int, *, version: int, on_policy: bool = True) -> list[object]:
        self.calls += 1
        taken, self.groups = self.groups[: min(count, 2)], self.groups[min(count, 2) :]
        return taken


def _group(rewards: list[float]) -> object:
    from types import SimpleNamespace

    return SimpleNamespace(rewards=rewards)


def _draw(rewards: list[list[float]], groups_per_step: int, resample_limit: int) -> tuple[list[object], int] | None:
    import threading

    from cua_bench_rl.train import _wait_for_groups

    config = small_train_config(groups_per_step=groups_per_step, resample_limit=resample_limit)
    rollouts = type("R", (), {"error": None, "owed": None})()
    informative = lambda g: len(set(g.rewards)) > 1  # noqa: E731  (GRPO's rule)
    return _wait_for_groups(_Buffer(rewards), threading.Lock(), config, 0, rollouts, time.monotonic() + 5, informative)  # type: ignore[arg-type]


def test_groups_with_nothing_to_learn_are_replaced_within_the_bound() -> None:
    # DAPO's dynamic sampling: the two all-alike groups are set aside and two more are drawn.
    drawn = _draw([[0, 0], [1, 0], [1, 1], [0, 1], [1, 0]], groups_per_step=3, resample_limit=4)
    assert drawn is not None and [g.rewards for g in drawn[0]] == [[1, 0], [0, 1], [1, 0]] and drawn[1] == 2
    # At most groups_per_step * resample_limit drawn: here 4, none to learn from.
    drawn = _draw([[0, 0]] * 10, groups_per_step=2, resample_limit=2)
    assert drawn == ([], 4)


class _Lockstep:
    """Rollouts that play exactly the groups asked for: each ask files that many of ``rewards`` into the buffer."""

    def __init__(self, rewards: list[list[float]], stale: int = 0) -> None:
        self.error = None
        self.owed = 0
        self.left = [_group(r) for r in rewards]
        self.buffer = _Buffer([])
        self.stale = stale  # the first N groups filed are too old: the buffer drops them unseen
        self.played = 0

    def ask(self, groups: int) -> None:
        self.owed += groups
        for _ in range(groups):  # played at once, as if the trainer had waited for them
            self.played += 1
            self.owed -= 1
            group = self.left.pop(0)
            if self.played > self.stale:
                self.buffer.groups.append(group)


def test_lockstep_rollouts_play_exactly_the_groups_the_step_draws() -> None:
    import threading

    from cua_bench_rl.train import _wait_for_groups

    config = small_train_config(groups_per_step=2, resample_limit=4)
    informative = lambda g: len(set(g.rewards)) > 1  # noqa: E731
    rollouts = _Lockstep([[0, 0], [1, 0], [1, 1], [0, 1], [1, 0], [0, 1]])
    drawn = _wait_for_groups(rollouts.buffer, threading.Lock(), config, 0, rollouts, time.monotonic() + 5, informative)  # type: ignore[arg-type]
    assert drawn is not None and [g.rewards for g in drawn[0]] == [[1, 0], [0, 1]] and drawn[1] == 2
    assert rollouts.played == 4 and rollouts.left == [_group([1, 0]), _group([0, 1])]  # nothing played ahead
    # Groups the buffer dropped as stale are asked for again, so the step is not left waiting for them.
    rollouts = _Lockstep([[1, 0], [0, 1], [1, 0], [0, 1]], stale=2)
    drawn = _wait_for_groups(rollouts.buffer, threading.Lock(), config, 0, rollouts, time.monotonic() + 5, informative)  # type: ignore[arg-type]
    assert drawn is not None and len(drawn[0]) == 2 and rollouts.played == 4


def test_a_run_with_nothing_to_learn_from_stops_and_says_so(tmp_path: Path) -> None:
    # The grid policy only clicks, and a login needs typing: every group scores all zeros, so GRPO has no
    # gradient. Before, each such call still counted as a step (and a policy version).
    args = [
        "train", "--env", "sim:login", "--policy", POLICY, "--trainer", "grpo", "--trainer-option",
        "lr=0.1", "--group-size", "2", "--groups-per-step", "1", "--workers", "1", "--eval-workers", "1",
        "--eval-episodes", "1", "--train-variants", "2", "--max-steps", "1", "--steps", "50",
        "--output", str(tmp_path / "run"),
    ]  # fmt: skip
    config = tmp_path / "limit.json"
    config.write_text(json.dumps({"resample_limit": 2}))
    done = subprocess.run(
        [*CLI, *args, "--config", str(config)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no_signal: 0 steps" in done.stdout and "nothing to learn from" in done.stderr
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["steps"] == 0


@pytest.mark.parametrize("sampling", ["difficulty", "variant-difficulty"])
def test_a_run_can_sample_its_tasks_by_difficulty(sampling: str, tmp_path: Path) -> None:
    config = small_train_config(env="sim:click-button,login", task_sampling=sampling, steps=2)
    result = train(config, tmp_path / "run")
    assert result.status == "finished" and result.steps == 2
    from cua_data import DatasetReader

    played = {
        EpisodeSpec.parse_key(str(sample.metadata.others["task"])).task
        for sample in DatasetReader(tmp_path / "run" / "buffer")
    }
    assert played and played <= {"sim/click-button", "sim/login"}  # the draws' statistics: test_sampling.py
