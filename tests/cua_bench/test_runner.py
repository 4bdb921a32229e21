from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support.bench_tasks import make_taskset

from cua_bench.backends.base import BackendError, Computer
from cua_bench.backends.sim import SimBackend
from cua_bench.runner import RunConfig, Runner
from cua_data import DatasetReader


def test_oracle_run_records_trajectories_and_summary(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 4), "press-b": ("fast", 3)})
    summary = Runner(RunConfig(str(tasks), tmp_path / "run", max_parallel=2, heartbeat_timeout=2)).run()
    assert summary["episodes"] == 7
    assert summary["success_rate"] == 1.0
    assert summary["errors"] == 0
    assert set(summary["tasks"]) == {"press-a", "press-b"}
    assert summary["complete"] is True
    assert json.loads((tmp_path / "run/summary.json").read_text())["mean_reward"] == 1.0
    rows = list(DatasetReader(tmp_path / "run/trajectories"))
    assert len(rows) == 7
    row = next(r for r in rows if r.metadata.others["episode"] == "press-a/test/1")
    assert row.metadata.others["reward"] == 1.0 and row.metadata.platform == "desktop"  # the session's
    assert row.messages[0]["content"][1]["text"] == "Press Bravo"
    assert row.messages[1]["tool_calls"][0]["function"]["arguments"]["actions"][0]["action"] == "click"
    assert row.messages[-1]["content"] == [{"type": "text", "text": "Done."}]
    assert len(row.images) == 2  # the first screen and the one after the click


class RecordingSim(SimBackend):
    """The sim backend, keeping every computer it provisions so a test can kill one."""

    def __init__(self) -> None:
        self.computers: list[Computer] = []

    def provision(self, **kwargs: Any) -> Computer:
        computer = super().provision(**kwargs)
        self.computers.append(computer)
        return computer


def test_a_task_that_asks_for_a_new_computer_after_its_episode_gets_one_and_others_keep_theirs(
    tmp_path: Path,
) -> None:
    tasks = make_taskset(tmp_path / "ts", {"renew": ("renew", 3), "keep": ("fast", 3)})
    counts = {}
    for name in ("renew", "keep"):
        runner = Runner(RunConfig(str(tasks), tmp_path / name, max_parallel=1, record=False, tasks=name))
        backend = runner.backend = RecordingSim()
        summary = runner.run()
        assert (summary["episodes"], summary["success_rate"]) == (3, 1.0)
        counts[name] = len(backend.computers)
    assert counts == {"renew": 3, "keep": 1}


class RestoringSim(RecordingSim):
    """The sim backend with a ``restore`` that counts its calls (a VM backend reverts a snapshot there)
    and raises BackendError on the calls numbered in ``fails``."""

    def __init__(self, fails: tuple[int, ...] = ()) -> None:
        super().__init__()
        self.fails = fails
        self.restored: list[Computer] = []

    def restore(self, computer: Computer) -> None:
        self.restored.append(computer)
        if len(self.restored) in self.fails:
            raise BackendError("its snapshot would not revert (test)")


def test_a_computer_is_restored_before_each_episode_after_its_first(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 3)})
    runner = Runner(RunConfig(str(tasks), tmp_path / "run", max_parallel=1, record=False))
    backend = runner.backend = RestoringSim()
    summary = runner.run()
    assert (summary["episodes"], summary["success_rate"], summary["errors"]) == (3, 1.0, 0)
    assert len(backend.computers) == 1  # the preflight's, handed in fresh: not restored before its first
    assert backend.restored == [backend.computers[0]] * 2


def test_a_computer_that_cannot_be_restored_is_replaced_and_the_episode_plays_on_a_fresh_one(
    tmp_path: Path,
) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 3)})
    runner = Runner(RunConfig(str(tasks), tmp_path / "run", max_parallel=1, record=False))
    backend = runner.backend = RestoringSim(fails=(1,))  # before the second episode
    summary = runner.run()
    assert (summary["episodes"], summary["success_rate"], summary["errors"]) == (3, 1.0, 0)
    first, fresh = backend.computers  # provisioned twice
    assert first.handle.poll() is not None  # the one that could not be restored was torn down
    assert backend.restored == [first, fresh]  # the fresh one: restored before the third episode only
    results = [json.loads(line) for line in (tmp_path / "run/episodes.jsonl").read_text().splitlines()]
    assert sorted(r["attempts"] for r in results) == [1, 1, 2]
    assert all(r["status"] == "ok" for r in results)


def test_a_killed_env_server_is_replaced_and_its_episode_retried(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"slow-task": ("slow", 1), "crash-task": ("crash", 1)})
    runner = Runner(RunConfig(str(tasks), tmp_path / "run", max_parallel=1, heartbeat_timeout=1, record=False))
    backend = runner.backend = RecordingSim()

    def kill_first() -> None:
        while not (tmp_path / "ts/slow-task.flag").exists():
            time.sleep(0.05)
        os.kill(backend.computers[-1].handle.pid, signal.SIGKILL)  # the one running the slow oracle

    killer = threading.Thread(target=kill_first, daemon=True)
    killer.start()
    summary = runner.run()
    results = {
        json.loads(line)["task"]: json.loads(line)
        for line in (tmp_path / "run/episodes.jsonl").read_text().splitlines()
    }
    assert results["slow-task"]["status"] == "ok"
    assert results["slow-task"]["reward"] == 1.0
    assert results["slow-task"]["attempts"] == 2  # the first server died mid-episode
    assert results["crash-task"]["status"] == "error"  # died twice: errored, never a silent 0
    assert results["crash-task"]["attempts"] == 2
    assert "ServerLost" in results["crash-task"]["error"]
    assert summary["errors"] == 1
    assert summary["scored"] == 1
    assert summary["success_rate"] == 1.0
    for computer in backend.computers:  # nothing left running
        assert computer.handle.poll() is not None


_INTERRUPTIBLE = textwrap.dedent(
    """
    import os, signal, sys, time
    from pathlib import Path
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (support/signals.py)
    from cua_bench.agents.builtin import RandomAgent
    from cua_bench.runner import RunConfig, Runner

    # Ctrl-C once 4 episodes are on disk, from inside the run (the runner's threads act): a signal sent
    # from outside could come after a loaded machine had finished all 16.
    results, play, sent = Path(sys.argv[2]) / "episodes.jsonl", RandomAgent.act, []
    def act(self, observation):
        if results.exists() and len(results.read_text().splitlines()) >= 4:
            if not sent:
                sent.append(os.kill(os.getpid(), signal.SIGINT))
            time.sleep(0.5)  # the rest of the run waits while the main thread takes the interrupt
        return play(self, observation)
    RandomAgent.act = act

    config = RunConfig(sys.argv[1], Path(sys.argv[2]), agent="random", max_parallel=2, commit_every=2,
                       resume=True, max_steps=4)
    try:
        Runner(config).run()
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
    """
)


def test_sigint_then_resume_gives_the_uninterrupted_summary(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 8), "press-b": ("fast", 8)})
    baseline = Runner(RunConfig(str(tasks), tmp_path / "whole", agent="random", max_parallel=2, max_steps=4)).run()
    run = tmp_path / "cut"
    proc = subprocess.run(
        [sys.executable, "-c", _INTERRUPTIBLE, str(tasks), str(run)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert "interrupted" in proc.stdout
    results = run / "episodes.jsonl"
    done_before = len(results.read_text().splitlines())
    assert 4 <= done_before < 16, "the run should have been cut in the middle"
    resumed = Runner(RunConfig(str(tasks), run, agent="random", max_parallel=2, max_steps=4, resume=True)).run()
    lines = results.read_text().splitlines()
    assert len(lines) == 16  # nothing redone, nothing missing
    assert len({json.loads(line)["key"] for line in lines}) == 16
    for key in ("episodes", "success_rate", "mean_reward", "tasks", "errors"):
        assert resumed[key] == baseline[key], key
    assert len(list(DatasetReader(run / "trajectories"))) == 16


def test_a_finished_run_folder_is_not_overwritten(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 1)})
    Runner(RunConfig(str(tasks), tmp_path / "run", record=False)).run()
    from cua_core.errors import CuaError

    with pytest.raises(CuaError, match="pass --resume"):
        Runner(RunConfig(str(tasks), tmp_path / "run", record=False)).run()


def test_progress_is_published_on_the_bus(tmp_path: Path) -> None:
    from cua_core.events import BusAddresses, Forwarder, Subscriber

    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 3)})
    with Forwarder(BusAddresses.default()) as forwarder, Subscriber(forwarder.addresses.subscribe, ["bench"]) as sub:
        time.sleep(0.3)  # the subscription reaches the forwarder before the run publishes
        Runner(RunConfig(str(tasks), tmp_path / "run", max_parallel=1, record=False)).run()
        events = []
        while (event := sub.recv(timeout=2)) is not None:
            events.append(event)
            if event.topic == "bench.run.finished":
                break
    topics = [e.topic for e in events]
    assert topics[0] == "bench.run.started"
    assert topics.count("bench.episode.started") == 3
    assert topics.count("bench.episode.finished") == 3
    assert topics[-1] == "bench.run.finished"
    finished = [e.body for e in events if e.topic == "bench.episode.finished"]
    assert {f["episode"] for f in finished} == {"press-a/test/0", "press-a/test/1", "press-a/test/2"}
    assert all(f["reward"] == 1.0 and f["status"] == "ok" for f in finished)
    assert events[-1].body["success_rate"] == 1.0


def test_a_task_that_cannot_run_here_is_skipped_with_its_reason(tmp_path: Path) -> None:
    folder = tmp_path / "ts" / "needs-proxy"
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(
        textwrap.dedent(
            """
            import cua_bench as cb

            class TaskSkipped(cb.TaskError):
                pass

            @cb.tasks_config
            def load():
                return [cb.Task(description="Browse through a proxy")]

            @cb.setup_task
            async def setup(task, session):
                raise TaskSkipped("unsupported: proxy")

            @cb.evaluate_task
            async def evaluate(task, session):
                return [0.0]
            """
        )
    )
    summary = Runner(RunConfig(str(tmp_path / "ts"), tmp_path / "run", agent="noop", record=False)).run()
    assert (summary["skipped"], summary["errors"], summary["scored"]) == (1, 0, 0)
    result = json.loads((tmp_path / "run/episodes.jsonl").read_text())
    assert (result["status"], result["error"]) == ("skipped", "unsupported: proxy")


def test_a_worker_that_dies_unexpectedly_fails_the_run_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a silent run of 0 episodes: the error names the cause, what got done, and how to go on."""
    from cua_core.errors import CuaError

    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 2)})
    runner = Runner(RunConfig(str(tasks), tmp_path / "out", record=False, max_parallel=2))

    provision = runner.backend.provision
    calls: list[int] = []

    def broken(**options: Any) -> Computer:
        calls.append(1)
        if len(calls) == 1:  # the run's preflight computer starts; the second worker's does not
            return provision(**options)
        raise ValueError("no room for sockets")

    monkeypatch.setattr(runner.backend, "provision", broken)
    with pytest.raises(
        CuaError,
        match=r"1 runner worker\(s\) stopped on ValueError: no room for sockets \(1 of 2 episodes done; .*--resume\)",
    ):
        runner.run()
    assert (tmp_path / "out" / "summary.json").exists()  # what was done is kept


@pytest.mark.parametrize(("fail_in", "function"), [("setup", "setup"), ("evaluate", "evaluate")])
def test_a_task_that_raises_records_where_in_its_own_code(tmp_path: Path, fail_in: str, function: str) -> None:
    """Its file and line in episodes.jsonl, its frames first; the env server's and the RPC's are left out."""
    from support.user_errors import failing_line, faulty_task

    folder = faulty_task(tmp_path / "ts", fail_in)
    summary = Runner(RunConfig(str(tmp_path / "ts"), tmp_path / "run", agent="noop", record=False)).run()
    assert summary["errors"] == 1
    result = json.loads((tmp_path / "run/episodes.jsonl").read_text())
    trace = result["traceback"]
    assert f'File "{folder.resolve()}/main.py", line {failing_line(folder)}, in expected' in trace, trace
    assert trace.index(f", in {function}\n") < trace.index(", in expected\n")  # most recent call last
    assert 'return task.metadata["expected"]' in trace and trace.rstrip().endswith("KeyError: 'expected'")
    assert "cua_core" not in trace and "cua_bench/server.py" not in trace and "asyncio" not in trace
    # --debug keeps the server's whole traceback instead
    Runner(RunConfig(str(tmp_path / "ts"), tmp_path / "debug", agent="noop", record=False, full_tracebacks=True)).run()
    full = json.loads((tmp_path / "debug/episodes.jsonl").read_text())["traceback"]
    assert "cua_core/rpc/server.py" in full and "KeyError: 'expected'" in full


def test_the_summary_shows_the_screen_the_task_ran_at(tmp_path: Path) -> None:
    from support.user_errors import faulty_task

    from cua_bench.summary import format_summary

    faulty_task(tmp_path / "ts", "nowhere")  # declares 1024x768; the run's own size is 1280x800
    summary = Runner(RunConfig(str(tmp_path / "ts"), tmp_path / "run", record=False)).run()
    assert summary["scored"] == 1 and summary["screens"] == ["1024x768"]
    assert json.loads((tmp_path / "run/episodes.jsonl").read_text())["screen"] == [1024, 768]
    text = format_summary(summary)
    assert "screen=1024x768" in text and "1280" not in text
