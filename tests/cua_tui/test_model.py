"""The TUI's model: every topic of the contract is shown, and each event folds in as the run counts it."""

from __future__ import annotations

import typing
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cua_bench import events as bench_events
from cua_bench_rl import events as rl_events
from cua_pool import events as pool_events
from cua_tui.model import Model

ALL_TOPICS = {**pool_events.TOPICS, **bench_events.TOPICS, **rl_events.TOPICS}


def body(topic: str, **values: Any) -> dict[str, Any]:
    """A payload that passes its package's check, with defaults for the fields a test does not care about."""
    defaults: dict[Any, Any] = {str: "x", int: 0, float: 0.0, bool: False}
    out: dict[str, Any] = {}
    for name, kind in typing.get_type_hints(ALL_TOPICS[topic]).items():
        if name in values:
            out[name] = values[name]
        elif typing.get_origin(kind) is list:
            out[name] = []
        elif type(None) in typing.get_args(kind):
            out[name] = None
        else:
            out[name] = defaults[kind]
    for module in (pool_events, bench_events, rl_events):
        if topic in module.TOPICS:
            module.check(topic, out)
    return out


def test_every_topic_of_the_contract_changes_a_view() -> None:
    model = Model()
    for topic in ALL_TOPICS:
        assert model.apply(topic, body(topic)) is not None, f"{topic} is published but the TUI ignores it"
    assert model.unknown_topics == 0


def test_an_evaluation_run_counts_like_its_summary() -> None:
    model = Model()
    run = "r1"
    model.apply(bench_events.RUN_STARTED, body(bench_events.RUN_STARTED, run=run, folder="/runs/a", episodes=4))
    finished = bench_events.EPISODE_FINISHED
    model.apply(finished, body(finished, run=run, episode="t/test/0", task="t", reward=1.0, status="ok"))
    model.apply(finished, body(finished, run=run, episode="t/test/1", task="t", reward=0.0, status="ok"))
    model.apply(finished, body(finished, run=run, episode="u/test/0", task="u", status="error", error="boom"))
    # The errored episode is retried and succeeds: it replaces its error, as summary.json would count it.
    model.apply(finished, body(finished, run=run, episode="u/test/0", task="u", reward=1.0, status="ok"))
    state = model.runs[run]
    assert (state.done, state.total, state.error_count) == (3, 4, 0)
    assert state.success_rate == pytest.approx(2 / 3)
    assert state.tasks["t"].success_rate == 0.5 and state.tasks["u"].episodes == 1 and state.tasks["u"].errors == 0
    assert list(state.errors) == ["u/test/0: boom"]
    assert model.folders["/runs/a"] == run
    model.apply(bench_events.RUN_FINISHED, body(bench_events.RUN_FINISHED, run=run, complete=False))
    assert state.status == "interrupted"


def test_jobs_and_hosts_follow_their_events() -> None:
    model = Model()
    model.apply(pool_events.HOST_JOINED, body(pool_events.HOST_JOINED, host="h1", name="box"))
    model.apply(pool_events.JOB_SUBMITTED, body(pool_events.JOB_SUBMITTED, job="j1", fn="train"))
    model.apply(pool_events.JOB_PLACED, body(pool_events.JOB_PLACED, job="j1", attempt=1, hosts=["h1"]))
    assert (model.jobs["j1"].state, model.jobs["j1"].hosts) == ("running", ["h1"])
    model.apply(pool_events.HOST_LOST, body(pool_events.HOST_LOST, host="h1", reason="missed heartbeats"))
    model.apply(pool_events.JOB_RESTARTING, body(pool_events.JOB_RESTARTING, job="j1", attempt=2))
    assert (model.hosts["h1"].state, model.jobs["j1"].state) == ("lost", "restarting")
    model.apply(pool_events.JOB_CANCELLED, body(pool_events.JOB_CANCELLED, job="j1"))
    assert model.jobs["j1"].state == "cancelled" and model.jobs["j1"].ended is not None
    # The controller's snapshot is the truth: a job it no longer lists goes.
    model.load_jobs([])
    assert model.jobs == {}


def test_envs_come_and_go() -> None:
    model = Model()
    step = bench_events.ENV_STEP
    model.apply(step, body(step, run="r", env="w0", task="sim/click-button", step=3, action="click(1, 2)", reward=0.5))
    assert model.envs["r/w0"].action == "click(1, 2)" and model.envs["r/w0"].reward == 0.5
    model.apply(bench_events.ENV_CLOSED, body(bench_events.ENV_CLOSED, run="r", env="w0"))
    assert model.envs == {}


def test_rl_steps_make_curves() -> None:
    model = Model()
    for n in range(1, 4):
        model.apply(rl_events.STEP_DONE, body(rl_events.STEP_DONE, run="rl-1", step=n, loss=1.0 / n, success=0.1 * n))
    run = model.runs["rl-1"]
    assert [p["step"] for p in run.curve] == [1, 2, 3] and run.success_rate == pytest.approx(0.3)


def test_a_pipelines_stages_show_as_one_run() -> None:
    model = Model()
    stage = rl_events.PIPELINE_STAGE
    model.apply(stage, body(stage, run="pipeline-1", folder="/p", stage="baseline", status="skipped"))
    model.apply(stage, body(stage, run="pipeline-1", folder="/p", stage="grpo", status="started"))
    run = model.runs["pipeline-1"]
    assert (run.title, run.status, model.folders["/p"]) == ("pipeline · grpo started", "running", "pipeline-1")
    model.apply(stage, body(stage, run="pipeline-1", folder="/p", stage="grpo", status="failed", seconds=12.0))
    assert run.status == "failed" and list(run.errors) == ["stage grpo failed after 12 s"]
    model.apply(stage, body(stage, run="pipeline-1", folder="/p", stage="report", status="done"))
    assert run.status == "finished"


@given(st.text(max_size=30), st.one_of(st.none(), st.integers(), st.dictionaries(st.text(max_size=8), st.integers())))
def test_a_foreign_or_malformed_event_is_counted_never_a_crash(topic: str, value: Any) -> None:
    model = Model()
    model.apply(topic, value)
    for known in ALL_TOPICS:
        model.apply(known, value)
    assert model.events == 1 + len(ALL_TOPICS)
