"""cua-bench's bus contract: the topics module, the env.step helper, run.json, and a real run's events."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from support.bench_tasks import make_taskset

from cua_bench import events
from cua_bench.episode import StepRecord
from cua_bench.run_marker import RUN_FILE, read_run_marker, write_run_marker
from cua_bench.runner import RunConfig, Runner
from cua_core.actions import Click, Done, Drag, KeyPress, Point, TypeText
from cua_core.events import BusAddresses, Event, Forwarder, Subscriber, check_topic


def test_the_contract_module_names_every_topic_under_bench_or_env() -> None:
    assert events.PACKAGE == "cua-bench" and events.VERSION >= 1
    assert set(events.ENV_TOPICS) == {"env.step", "env.closed"} and events.ENV_TOPICS.items() <= events.TOPICS.items()
    for topic, payload in events.TOPICS.items():
        assert topic.startswith(("bench.", "env.")) and check_topic(topic) == topic
        assert issubclass(payload, tuple) and hasattr(payload, "_fields"), f"{topic}: not a NamedTuple"
        assert payload._fields[0] == "run", f"{topic}: every payload carries the run's id"
        assert payload.__doc__ and not payload.__doc__.startswith(f"{payload.__name__}("), f"{topic}: no docstring"


def test_action_text_is_short_and_reads_like_the_action() -> None:
    assert events.action_text([Click(Point(512, 300))]) == "click(512, 300)"
    assert events.action_text([Click(Point(1, 2), button="right")]) == "click(1, 2, 'right')"
    assert events.action_text([KeyPress(("ctrl", "c")), Done()]) == "key('ctrl+c'); done()"
    assert events.action_text([Drag(Point(1, 2), Point(3, 4))]) == "drag((1, 2), (3, 4))"
    assert events.action_text([]) == ""
    long = events.action_text([TypeText("a rather long text the agent typed " * 3, press_enter=True)] * 4)
    assert len(long) == events.ACTION_TEXT_MAX and long.endswith("…")
    assert events.action_text([TypeText("x" * 100)]) == "type('" + "x" * 23 + "…')"


class _Bus:
    def __init__(self) -> None:
        self.published: list[tuple[str, dict[str, Any]]] = []

    def publish(self, topic: str, body: dict[str, Any]) -> None:
        self.published.append((topic, events.check(topic, {"run": "r1", **body})))


def _record(step: int, reward: float, done: bool) -> StepRecord:
    return StepRecord(step, [Click(Point(5, 6))], {}, reward, done, False, {}, 0.01)


def test_env_steps_publishes_each_step_with_the_reward_so_far_then_calls_on() -> None:
    bus, seen = _Bus(), []
    on_step = events.env_steps(
        bus, env="w0", address="ipc:///x.sock", episode="t/test/1", task="t", variant=1, then=seen.append
    )
    for record in (_record(1, 0.0, False), _record(2, 0.25, False), _record(3, 0.5, True)):
        on_step(record)
    assert [r.step for r in seen] == [1, 2, 3]
    bodies = [body for topic, body in bus.published if topic == events.ENV_STEP]
    assert [b["reward"] for b in bodies] == [0.0, 0.25, 0.75]
    assert [b["done"] for b in bodies] == [False, False, True]
    assert bodies[0] == {
        "run": "r1", "env": "w0", "address": "ipc:///x.sock", "episode": "t/test/1", "task": "t", "variant": 1,
        "step": 1, "action": "click(5, 6)", "reward": 0.0, "done": False,
    }  # fmt: skip


def test_check_refuses_a_drifted_payload() -> None:
    body = {"run": "r", "episode": "e", "task": "t", "variant": 0, "reward": None, "status": "ok", "steps": 1}
    with pytest.raises(ValueError, match=r"bench\.episode\.finished: missing \['error'\]"):
        events.check(events.EPISODE_FINISHED, body)
    assert events.check(events.EPISODE_FINISHED, {**body, "error": None})["reward"] is None
    with pytest.raises(ValueError, match=r"env\.step\.done: 1 is not bool"):
        events.check(events.ENV_STEP, {**dict.fromkeys(events.EnvStep._fields, "x"), "variant": 0, "step": 1,
                                       "reward": 0.0, "done": 1})  # fmt: skip


def test_the_run_marker_is_written_whole_and_read_back(tmp_path: Path) -> None:
    assert read_run_marker(tmp_path) is None
    write_run_marker(tmp_path, "abc", "bench")
    marker = read_run_marker(tmp_path)
    assert marker is not None and marker["run"] == "abc" and marker["kind"] == "bench"
    assert marker["pid"] == os.getpid() and abs(marker["started"] - time.time()) < 60
    write_run_marker(tmp_path, "def", "rl")  # a resume overwrites it
    assert read_run_marker(tmp_path) == {**read_run_marker(tmp_path), "run": "def", "kind": "rl"}  # type: ignore[dict-item]
    assert [p.name for p in tmp_path.iterdir()] == [RUN_FILE]  # nothing left aside
    with pytest.raises(ValueError, match="bench, rl"):
        write_run_marker(tmp_path, "x", "train")
    (tmp_path / RUN_FILE).write_text("{torn")
    assert read_run_marker(tmp_path) is None
    (tmp_path / RUN_FILE).write_text("[1]")
    assert read_run_marker(tmp_path) is None


def _drain(sub: Subscriber, last: str) -> list[Event]:
    seen = []
    while (event := sub.recv(timeout=5)) is not None:
        seen.append(event)
        if event.topic == last:
            break
    return seen


def test_a_real_run_publishes_payloads_that_match_the_contract(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 3)})
    run = tmp_path / "run"
    with (
        Forwarder(BusAddresses.default()) as forwarder,
        Subscriber(forwarder.addresses.subscribe, ["bench", "env"]) as sub,
    ):
        time.sleep(0.3)  # the subscription reaches the forwarder before the run publishes
        summary = Runner(RunConfig(str(tasks), run, max_parallel=2, record=False)).run()
        seen = _drain(sub, events.RUN_FINISHED)
        closed = [e for e in seen if e.topic == events.ENV_CLOSED]
        while len(closed) < 2 and (event := sub.recv(timeout=2)) is not None:  # a worker closes after the end
            seen.append(event)
            closed += [event] if event.topic == events.ENV_CLOSED else []
    for event in seen:
        events.check(event.topic, event.body)
    topics = [e.topic for e in seen]
    assert topics[0] == events.RUN_STARTED and events.RUN_FINISHED in topics
    assert topics.count(events.EPISODE_FINISHED) == 3 and topics.count(events.ENV_STEP) >= 3
    marker = read_run_marker(run)
    assert marker is not None and marker["kind"] == "bench"
    assert {e.body["run"] for e in seen} == {marker["run"]}  # run.json names the run seen on the bus
    started = seen[0].body
    assert started["folder"] == str(run.resolve()) and started["episodes"] == started["todo"] == 3
    assert started["taskset"] == str(tasks) and started["backend"] == "sim" and started["split"] == "test"
    steps = [e.body for e in seen if e.topic == events.ENV_STEP]
    assert {s["env"] for s in steps} <= {"w0", "w1"} and all(s["address"].startswith("ipc://") for s in steps)
    assert {s["episode"] for s in steps if s["done"]} == {"press-a/test/0", "press-a/test/1", "press-a/test/2"}
    assert all(s["reward"] == 1.0 for s in steps if s["done"]) and steps[0]["action"].startswith("click(")
    assert {e.body["env"] for e in seen if e.topic == events.ENV_CLOSED} == {s["env"] for s in steps}
    finished = next(e.body for e in seen if e.topic == events.RUN_FINISHED)
    assert finished["complete"] is True and finished["episodes"] == 3 and finished["success_rate"] == 1.0
    assert finished["wall_s"] == json.loads((run / "summary.json").read_text())["timings"]["wall_s"]
    assert summary["episodes"] == 3


def test_a_runner_whose_payload_drifts_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Renamed(NamedTuple):
        run: str
        folder: str
        episode_count: int  # was `episodes`

    monkeypatch.setitem(events.TOPICS, events.RUN_STARTED, Renamed)
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 1)})
    before = _env_servers()
    runner = Runner(RunConfig(str(tasks), tmp_path / "run", record=False))
    with pytest.raises(ValueError, match=r"bench\.run\.started: missing \['episode_count'\]"):
        runner.run()
    assert runner.spare_computer is None and _env_servers() <= before  # the preflight's computer is stopped


def _env_servers() -> set[int]:
    """This process's env server children that are still running."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(stat[1]) == os.getpid() and stat[0] != "Z" and b"cua_bench.server" in cmdline:
            found.add(int(entry.name))
    return found


def test_a_marker_is_alive_while_its_process_runs(tmp_path: Path) -> None:
    import subprocess
    import sys

    from cua_bench.run_marker import marker_alive

    write_run_marker(tmp_path, "r", "bench")
    assert marker_alive(read_run_marker(tmp_path) or {})  # this process wrote it
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    assert not marker_alive({"pid": int(gone.stdout)})  # exited (and reaped)
    assert not marker_alive({}) and not marker_alive({"pid": True}) and not marker_alive({"pid": "1"})
