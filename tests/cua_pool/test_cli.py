"""Every `cua` command on a local pool that the CLI starts by itself (controller + host agent)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from poolkit import JOBS, LocalPool, wait_for

from cua_pool.config import host_config

BASIC = str(JOBS / "basic.py")


def submit(pool: LocalPool, fn: str, *args: str) -> str:
    return pool.cli("run", f"{BASIC}::{fn}", *args, "--detach").output.strip().splitlines()[-1]


def test_run_streams_prefixed_logs_and_keeps_rank0_result(local_pool: LocalPool) -> None:
    result = local_pool.cli("run", f"{BASIC}::hello", "3", '"yo"')
    lines = [line for line in result.output.splitlines() if line.startswith("[rank")]
    assert [line.split("] ", 1)[1] for line in lines] == ["yo 0", "yo 1", "yo 2"]
    assert lines[0].startswith("[rank 0 ")
    job = json.loads(local_pool.cli("jobs", "--json").output)[0]
    assert job["state"] == "succeeded"
    value = json.loads(local_pool.cli("jobs", "result", job["id"]).output)
    assert value["n"] == 3 and value["rank"] == 0


def test_local_pool_starts_on_first_use_with_this_computer(local_pool: LocalPool) -> None:
    assert local_pool.controller_pid() is None
    assert "no jobs in this pool yet" in local_pool.cli("jobs").output  # an empty table said nothing
    rows = json.loads(local_pool.cli("computers", "--json").output)
    assert local_pool.controller_pid() is not None and local_pool.agent_pid() is not None
    assert len(rows) == 1 and rows[0]["state"] == "up" and rows[0]["os"] == "Linux"
    assert rows[0]["cpus"] >= 1 and rows[0]["max_spaces"] >= 1
    text = local_pool.cli("computers").output
    assert "Linux/" in text and rows[0]["name"] in text
    assert "running" in local_pool.cli("pool", "status").output


def test_jobs_list_show_and_json(local_pool: LocalPool) -> None:
    job = submit(local_pool, "hello", "2")
    wait_for("job to finish", lambda: local_pool.job_state(job) == "succeeded")
    assert job in local_pool.cli("jobs").output
    shown = local_pool.cli("jobs", "show", job).output
    assert "attempt 1: succeeded" in shown and "rank 0 on" in shown and "exit 0" in shown
    info = json.loads(local_pool.cli("jobs", "show", job, "--json").output)
    assert [m["rank"] for m in info["members"]] == [0] and info["attempts"][0]["world_size"] == 1
    space = wait_for(
        "the space to be recorded as removed",
        lambda: (
            (sp := json.loads(local_pool.cli("jobs", "show", job, "--json").output)["members"][0]["space"])
            and sp["state"] == "removed"
            and sp
        ),
    )
    assert space["runtime"] == "process" and space["path"].endswith(f"/spaces/{job}.1.0") and space["handle"]["pid"] > 0


def test_logs_by_rank_since_offset_and_follow(local_pool: LocalPool) -> None:
    job = submit(local_pool, "hello", "4", "line")
    out = local_pool.cli("jobs", "logs", job, "-f").output
    assert [line.split("] ", 1)[1] for line in out.splitlines()] == [f"line {i}" for i in range(4)]
    assert local_pool.cli("jobs", "logs", job, "--rank", "0").output == "line 0\nline 1\nline 2\nline 3\n"
    # "line 0\n" is 7 bytes: from offset 7 the log starts at the second line.
    assert local_pool.cli("jobs", "logs", job, "--rank", "0", "--since", "7").output.startswith("line 1\n")
    assert local_pool.cli("jobs", "logs", job, "--since", "14").output.splitlines()[0].endswith("] line 2")
    no_rank = local_pool.cli("jobs", "logs", job, "--rank", "5", ok=False)  # was: nothing printed, exit 0
    assert no_rank.exit_code == 1 and f"job {job} has no rank 5: its ranks are 0" in no_rank.output


def test_cancel_stops_every_member_within_bound(local_pool: LocalPool) -> None:
    job = submit(local_pool, "ticker")
    wait_for("ticks", lambda: "tick 3" in local_pool.cli("jobs", "logs", job).output)
    start = time.monotonic()
    assert f"job {job}: cancelled" in local_pool.cli("jobs", "cancel", job, "--timeout", "10").output
    assert time.monotonic() - start < 10
    info = json.loads(local_pool.cli("jobs", "show", job, "--json").output)
    assert all(m["state"] in ("stopped", "failed", "exited") for m in info["members"])
    ticks = local_pool.cli("jobs", "logs", job, "--rank", "0").output.count("tick")
    time.sleep(0.5)
    assert local_pool.cli("jobs", "logs", job, "--rank", "0").output.count("tick") == ticks  # nothing runs on
    result = local_pool.cli("jobs", "result", job, ok=False)
    assert result.exit_code == 1 and f"job {job} was cancelled, so it has no result" in result.output
    assert "must return" not in result.output
    again = local_pool.cli("jobs", "cancel", job, ok=False)  # was: "job ...: cancelled", exit 0
    assert again.exit_code == 1 and "had already cancelled; nothing to cancel" in again.output


def test_result_to_file_and_pickled_results(local_pool: LocalPool, tmp_path: Path) -> None:
    job = submit(local_pool, "unpicklable")
    wait_for("job to finish", lambda: local_pool.job_state(job) == "succeeded")
    refused = local_pool.cli("jobs", "result", job, ok=False)
    assert refused.exit_code == 1 and "pickle" in refused.output and "-o" in refused.output
    local_pool.cli("jobs", "result", job, "-o", tmp_path / "r.bin")
    raw = (tmp_path / "r.bin").read_bytes()
    import pickle

    assert pickle.loads(raw) == {1, 2, 3}


def test_failing_job_fails_run_and_is_retried(local_pool: LocalPool) -> None:
    result = local_pool.cli("run", f"{BASIC}::fail", "--retries", "1", ok=False)
    assert result.exit_code == 1
    assert "this job fails on purpose" in result.output and "attempt 2" in result.output
    job = json.loads(local_pool.cli("jobs", "--json").output)[0]
    assert job["state"] == "failed" and job["attempt"] == 2
    nothing = local_pool.cli("jobs", "result", job["id"], ok=False)
    assert f"job {job['id']} failed, so it has no result; `cua jobs show" in nothing.output
    assert "must return" not in nothing.output


def test_space_is_a_fresh_folder_with_the_shipped_code_and_own_env(local_pool: LocalPool) -> None:
    local_pool.cli("run", f"{BASIC}::space_facts", "--env", "FOO=bar")
    job = json.loads(local_pool.cli("jobs", "--json").output)[0]["id"]
    facts = json.loads(local_pool.cli("jobs", "result", job).output)
    assert {"basic.py", "helper.py"} <= set(facts["files"])
    assert facts["sid"] == facts["pgid"] != os.getsid(0)  # its own session and process group
    assert facts["config_visible"] is False  # the agent's keys and config never reach a space
    assert facts["home"].endswith("/work")
    local_pool.cli("run", f"{BASIC}::uses_helper")
    job = json.loads(local_pool.cli("jobs", "--json").output)[0]["id"]
    assert json.loads(local_pool.cli("jobs", "result", job).output) == "hello from the shipped folder"
    local_pool.cli("run", f"{BASIC}::env", "FOO", "RANK", "WORLD_SIZE", "--env", "FOO=bar")
    job = json.loads(local_pool.cli("jobs", "--json").output)[0]["id"]
    assert json.loads(local_pool.cli("jobs", "result", job).output) == {"FOO": "bar", "RANK": "0", "WORLD_SIZE": "1"}


def test_memory_limit_applies_to_the_space(local_pool: LocalPool) -> None:
    result = local_pool.cli("run", f"{BASIC}::memory_hog", "600", "--memory-mb", "300", ok=False)
    assert result.exit_code == 1 and "MemoryError" in result.output


def test_host_commands(local_pool: LocalPool) -> None:
    out = local_pool.cli("host", "setup", "--share", "spaces", "--max-spaces", "3", "--name", "box").output
    assert "box" in out and "max 3" in out
    wait_for(
        "host to join",
        lambda: any(
            h["name"] == "box" and h["state"] == "up" for h in json.loads(local_pool.cli("computers", "--json").output)
        ),
    )
    status = json.loads(local_pool.cli("host", "status", "--json").output)
    assert status["name"] == "box" and status["agent_pid"] and status["max_spaces"] == 3
    assert status["isolation"] in ("own mount namespace (pool folders hidden)", "private folder of the agent's user")
    assert "running" in local_pool.cli("host", "status").output
    assert "stopped" in local_pool.cli("host", "stop").output
    assert local_pool.agent_pid() is None
    twice = local_pool.cli("host", "stop", ok=False)  # nothing happened: not a success
    assert twice.exit_code == 1 and "nothing to stop" in twice.output
    assert "stopped" in local_pool.cli("host", "status").output
    assert "running" in local_pool.cli("host", "start").output
    wait_for("agent", lambda: local_pool.agent_pid() is not None)
    twice = local_pool.cli("host", "start", ok=False)
    assert twice.exit_code == 1 and "already runs" in twice.output
    assert "removed" in local_pool.cli("host", "remove").output
    assert host_config() is None and local_pool.agent_pid() is None
    assert "not set up" in local_pool.cli("host", "status").output


def test_pool_stop_then_next_command_restarts_it(local_pool: LocalPool) -> None:
    job = submit(local_pool, "hello", "1")
    stopped = local_pool.cli("pool", "stop").output
    assert "controller: stopped" in stopped and "host agent: still running" in stopped
    assert local_pool.controller_pid() is None and local_pool.agent_pid() is not None
    twice = local_pool.cli("pool", "stop", ok=False)  # was: "controller: not running", exit 0
    assert twice.exit_code == 1 and "not running; nothing to stop" in twice.output and "pool down" in twice.output
    assert job in local_pool.cli("jobs").output  # started again, nothing lost


def test_pool_down_stops_every_pool_process_and_loses_nothing(local_pool: LocalPool) -> None:
    job = submit(local_pool, "ticker")
    wait_for("ticks", lambda: "tick 3" in local_pool.cli("jobs", "logs", job).output)
    member = json.loads(local_pool.cli("jobs", "show", job, "--json").output)["members"][0]["space"]["handle"]["pid"]
    daemons = (local_pool.controller_pid(), local_pool.agent_pid())
    out = local_pool.cli("pool", "down").output
    assert f"controller: stopped (pid {daemons[0]})" in out and f"host agent: stopped (pid {daemons[1]})" in out
    assert f"member rank 0 of job {job} (attempt 1): stopped (pid {member})" in out
    assert local_pool.controller_pid() is None and local_pool.agent_pid() is None
    stat = Path(f"/proc/{member}/stat")
    assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"  # gone, or a zombie
    again = local_pool.cli("pool", "down", ok=False)
    assert again.exit_code == 1 and "nothing to stop" in again.output
    # The next command starts the pool; the job ends as failed, with every line it logged.
    wait_for("the job to end", lambda: local_pool.job_state(job) == "failed")
    ticks = local_pool.cli("jobs", "logs", job, "--rank", "0").output.split()
    assert ticks[:8] == ["tick", "0", "tick", "1", "tick", "2", "tick", "3"]


def test_run_says_why_a_job_waits_and_when_that_changes(local_pool: LocalPool) -> None:
    local_pool.cli("host", "setup", "--share", "spaces", "--max-spaces", "1", "--no-start")
    busy = submit(local_pool, "ticker")  # takes the only space
    run = subprocess.Popen(
        [sys.executable, "-m", "cua_pool.cli", "run", f"{BASIC}::hello", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        waiting = wait_for(
            "a second job", lambda: (rows := json.loads(local_pool.cli("jobs", "--json").output))[1:] and rows[0]["id"]
        )
        quiet = local_pool.cli("jobs", "logs", waiting).output  # was: nothing at all, as if it had printed nothing
        assert f"no log lines from any rank of job {waiting} (pending: waiting for 1 cpu host(s)" in quiet
        time.sleep(0.5)
        local_pool.cli("jobs", "cancel", busy)
        out, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 0, err
    assert "pending: waiting for 1 cpu host(s) with a free space; 0 now" in err
    lines = err.splitlines()
    assert [line.split(" ", 2)[2] for line in lines if line.startswith("job ")][-2:] == ["running", "succeeded"]
    assert "hi 0" in out


def test_run_interrupted_is_not_a_success(local_pool: LocalPool, monkeypatch: pytest.MonkeyPatch) -> None:
    from cua_pool import cli_jobs

    def interrupted(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_jobs, "follow", interrupted)
    result = local_pool.cli("run", f"{BASIC}::hello", ok=False)
    assert result.exit_code == 130 and "left job" in result.output  # was: exit 0, as if it had succeeded
    job = json.loads(local_pool.cli("jobs", "--json").output)[0]["id"]
    wait_for("the job to run on", lambda: local_pool.job_state(job) == "succeeded")


def test_run_checks_the_target_without_importing_it(local_pool: LocalPool, tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_text(
        "import package_only_the_pool_hosts_have\n"
        "raise SystemExit('imported on the client!')\n"
        "try:\n    from fast import fast_main\nexcept ImportError:\n    pass\n"
        "def main():\n    return 1\n"
        "async def amain():\n    return 2\n"
        "class Trainer:\n    def fit(self):\n        pass\n"
    )
    # Each target is found: what stops these runs is the gang size the one-computer pool cannot hold.
    for fn in ("main", "amain", "Trainer.fit", "fast_main"):
        result = local_pool.cli("run", f"{train}::{fn}", "--nodes", "1000", "--detach", ok=False)
        assert result.exit_code == 1, result.output
        assert "never start in this pool: a gang of 1000 needs 1000 hosts (one member per host)" in result.output
        assert "the pool has 1 host;" in result.output
    assert local_pool.cli("jobs", "--json").output.strip() == "[]"  # nothing was submitted
    typo = local_pool.cli("run", f"{train}::mian", "--detach", ok=False)
    assert typo.exit_code == 2 and "defines no 'mian'; did you mean 'main'?" in typo.output
    assert "its top-level functions: amain, main" in typo.output
    lazy = tmp_path / "lazy.py"  # names made at run time cannot be checked: they are left to the host
    lazy.write_text("def __getattr__(name):\n    return lambda: name\n")
    assert "a gang of 1000" in local_pool.cli("run", f"{lazy}::anything", "--nodes", "1000", ok=False).output
    broken = tmp_path / "broken.py"
    broken.write_text("def main(:\n    pass\n")
    bad = local_pool.cli("run", f"{broken}::main", "--detach", ok=False)
    assert bad.exit_code == 2 and "line 1" in bad.output


def test_pairing_an_allowed_key_again_changes_nothing(local_pool: LocalPool) -> None:
    key = local_pool.cli("host", "pair").output.split()[-1]
    assert f"allowed {key} me" in local_pool.cli("host", "pair", "--allow", key, "--comment", "me").output
    again = local_pool.cli("host", "pair", "--allow", key, "--comment", "other", ok=False)  # was: "allowed", exit 0
    assert again.exit_code == 1 and "already allowed" in again.output and "nothing changed" in again.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "nope.py::main"], "no such file"),
        (["run", BASIC], "FILE::FUNCTION"),
        (["run", f"{BASIC}::hello", "--nodes", "3:1"], "MIN <= MAX"),
        (["run", f"{BASIC}::hello", "--nodes", "x"], "N or MIN:MAX"),
        (["run", f"{BASIC}::hello", "--env", "NOEQUALS"], "KEY=VALUE"),
        (["run", f"{BASIC}::hello", "--accelerator", "tpu"], "tpu"),
        (["run", f"{BASIC}::nosuchfn", "--detach"], "defines no 'nosuchfn'; its top-level functions: env, fail,"),
        (["run", f"{BASIC}::hello", "--runtime", "podman", "--detach"], "unknown space runtime 'podman'"),
        (["run", f"{BASIC}::hello", "--gpus", "2", "--detach"], "--gpus applies to --accelerator gpu"),
        (["run", f"{BASIC}::hello", "--image", "python:3.12", "--detach"], "--image needs a container runtime"),
        (["jobs", "show", "zzzzzz"], "no job 'zzzzzz'"),
        (["jobs", "show", "Bad/Id"], "is not a job id"),
        (["jobs", "logs", "zzzzzz"], "cua jobs"),
        (["host", "setup", "--share", "spaces", "--controller", "tcp://10.9.9.9:7070"], "CURVE"),
        (["host", "pair", "--controller", "tcp://10.9.9.9:7070"], "both"),
        (["pool", "serve", "--heartbeat-interval", "0"], "not in the range"),
        (["jobs", "cancel", "abcdef", "--timeout", "-1"], "not in the range"),
    ],
)
def test_bad_input_is_named_with_a_fix(local_pool: LocalPool, args: list[str], message: str) -> None:
    result = local_pool.cli(*args, ok=False)
    assert result.exit_code != 0
    assert message in result.output


def test_cua_tui_runs_the_tui_program_without_importing_it() -> None:
    # The pool depends on cua-core only: `cua tui` starts the cua-tui program beside this interpreter.
    code = (
        "import sys; from cua_pool.cli import main\n"
        "try:\n    main(['tui', '--help'], standalone_mode=False)\nexcept SystemExit as e:\n    code = e.code\n"
        "print('imported' if 'cua_tui' in sys.modules else 'not imported')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert "usage: cua-tui" in done.stdout and done.stdout.rstrip().endswith("not imported"), done.stdout + done.stderr
