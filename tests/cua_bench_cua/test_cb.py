"""`cb`, Cua Bench's command, over cua-bench: each verb on real sim runs, the scaffold's oracle (1)
and doing nothing (0), `cb run list/info` on run folders made here, and bad input as one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cua_bench.settings import load_settings
from cua_bench_cua.cb import main


def cb(*args: object, stdin: str | None = None) -> tuple[int, str]:
    """The exit code, and what was printed (only stdout with --json: progress goes to stderr)."""
    result = CliRunner().invoke(main, [str(a) for a in args], input=stdin)
    return result.exit_code, result.stdout if "--json" in args else result.output


def errors(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("Error:")]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of its own: `cb run` writes runs/ in it, as Cua's users would see."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_version_help_and_the_console_script(here: Path) -> None:
    code, out = cb("--version")
    assert (code, out.strip()) == (0, "cb, version 0.1.0")
    code, out = cb("run", "task", "--help")
    assert code == 0
    for flag in ("--oracle", "--noop", "--variant-id", "--max-variants", "--max-parallel", "-j", "--agent", "--model"):
        assert flag in out
    assert "--on " not in out and "--detach" not in out  # Cua's cloud flags are refused, not offered
    script = Path(sys.executable).parent / "cb"
    proc = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "cb run ./tasks/my_task" in proc.stdout
    assert "cua-bench" in proc.stdout


def test_scaffold_passes_with_its_oracle_and_scores_zero_doing_nothing(here: Path) -> None:
    code, out = cb("task", "create", "hello_file", "--dir", "tasks")
    assert code == 0, out
    task = here / "tasks" / "hello_file"
    assert (task / "main.py").is_file()
    code, out = cb("run", task, "--oracle", "--json", "--output-dir", "runs/oracle")
    assert code == 0, out
    summary = json.loads(out)
    assert (summary["episodes"], summary["mean_reward"], summary["split"]) == (1, 1.0, "train")  # variant 0 only
    code, out = cb("run", task, "--noop", "--json", "--output-dir", "runs/noop")
    assert code == 0, out
    assert (json.loads(out)["scored"], json.loads(out)["mean_reward"]) == (1, 0.0)
    # the default output folder is cua-bench's runs/<time>, printed
    code, out = cb("run", task)
    assert code == 0, out
    assert "run folder: runs/" in out and "success 100.0%" in out
    # a folder that holds anything is refused, as Cua's cb refuses it
    code, out = cb("task", "create", task)
    assert code == 1
    assert errors(out) == [f"Error: Target directory is not empty: {task}"]


def test_variant_id_max_variants_parallel_and_datasets(here: Path) -> None:
    for name in ("alpha", "beta"):
        assert cb("task", "create", f"tasks/{name}")[0] == 0
    code, out = cb("run", "tasks/alpha", "--variant-id", "2", "--output-dir", "runs/v2")
    assert code == 0, out
    keys = [json.loads(line)["key"] for line in (here / "runs/v2/episodes.jsonl").read_text().splitlines()]
    assert keys == ["alpha/train/2"]
    recorded = load_settings(here / "runs/v2")["results"]  # what it ran, not the first 3 of which 2 ran
    assert (recorded["variant"], recorded["variants"]) == (2, None)
    code, out = cb("run", "tasks/alpha", "--max-variants", "2", "-j", "2", "--json", "--output-dir", "runs/k2")
    assert code == 0, out
    assert json.loads(out)["episodes"] == 2
    # a folder of task folders is a dataset: every variant of every task, narrowed by --task-filter
    code, out = cb("run", "tasks", "-j", "3", "--json", "--output-dir", "runs/all")
    assert code == 0, out
    assert (json.loads(out)["episodes"], json.loads(out)["mean_reward"]) == (6, 1.0)
    code, out = cb("run", "tasks", "--task-filter", "b*", "--variant-id", "1", "--json", "--output-dir", "runs/b1")
    assert code == 0, out
    assert list(json.loads(out)["tasks"]) == ["beta"] and json.loads(out)["episodes"] == 1
    code, out = cb("run", "tasks/alpha", "--variant-id", "9", "--output-dir", "runs/v9")
    assert code == 1
    assert errors(out) == ["Error: tasks/alpha: nothing to run (no task has variant 9 in split 'train')"]
    # a registered task's name runs as a task (variant 0); --dry-run starts nothing
    code, out = cb("run", "sim/click-button", "--dry-run")
    assert code == 0, out
    assert out.splitlines() == [
        "cb: backend sim (the task needs the sim desktop; --backend overrides)",  # on stderr
        "  click-button v0 (test) on sim with oracle",
        "Dry run: 1 variant(s); nothing was started.",
    ]
    assert not (here / "runs" / "sim").exists()


def test_run_list_and_info_read_the_run_folders(here: Path) -> None:
    code, out = cb("run", "list")
    assert code == 1
    assert errors(out) == ["Error: runs: no runs directory here (cb run writes runs/; --runs-dir DIR)"]
    assert cb("task", "create", "tasks/gamma")[0] == 0
    assert cb("run", "tasks/gamma", "--output-dir", "runs/good")[0] == 0
    assert cb("run", "tasks/gamma", "--noop", "--max-variants", "2", "--output-dir", "runs/idle")[0] == 0
    code, out = cb("run", "list", "--json")
    assert code == 0, out
    rows = {Path(row["folder"]).name: row for row in json.loads(out)}
    assert set(rows) == {"good", "idle"}
    assert (rows["good"]["status"], rows["good"]["avg_reward"], rows["good"]["agent"]) == ("completed", 1.0, "oracle")
    assert (rows["idle"]["episodes"], rows["idle"]["avg_reward"], rows["idle"]["agent"]) == (2, 0.0, "noop")
    run_id = rows["idle"]["run_id"]
    assert run_id == json.loads((here / "runs/idle/run.json").read_text())["run"]
    code, out = cb("run", "list")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[1:3]] == [run_id, rows["good"]["run_id"]]  # newest first
    # by run id (a prefix will do), by folder name, by folder
    for ref in (run_id, run_id[:4], "idle", here / "runs/idle"):
        code, out = cb("run", "info", ref)
        assert code == 0, out
        assert f"Run: {run_id}" in out and "noop on tasks/gamma" in out and "success 0.0%" in out
    code, out = cb("run", "info", "good", "--json")
    assert code == 0
    assert json.loads(out)["mean_reward"] == 1.0
    code, out = cb("run", "info", "nothere")
    assert code == 1
    assert errors(out) == ["Error: no run 'nothere' in runs (cb run list shows them)"]
    # a run whose process still works (run.json's pid) and has no summary yet is running; once the
    # process is gone, incomplete
    busy = here / "runs" / "busy"
    busy.mkdir()
    (busy / "episodes.jsonl").write_text((here / "runs/idle/episodes.jsonl").read_text().splitlines()[0] + "\n")
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as proc:
        marker = {"run": "feedbeef", "kind": "bench", "started": 0, "pid": proc.pid, "episodes": 5}
        (busy / "run.json").write_text(json.dumps(marker))
        row = {r["run_id"]: r for r in json.loads(cb("run", "list", "--json")[1])}["feedbeef"]
        assert (row["status"], row["done"], row["episodes"]) == ("running", 1, 5)
        proc.kill()
    row = {r["run_id"]: r for r in json.loads(cb("run", "list", "--json")[1])}["feedbeef"]
    assert row["status"] == "incomplete"
    # a folder without results is no run: cua-bench report's error
    (here / "runs" / "empty").mkdir()
    code, out = cb("run", "info", here / "runs" / "empty")
    assert code == 1 and len(errors(out)) == 1 and "no episodes.jsonl" in out


def test_bad_input_is_one_line_and_not_zero(here: Path) -> None:
    assert cb("task", "create", "tasks/delta")[0] == 0
    cases: list[tuple[tuple[str, ...], int, str]] = [
        (("run", "no/such/thing"), 1, "no/such/thing: no such task or dataset"),
        (("run", "tasks/delta", "-j", "0"), 2, "Invalid value for '--max-parallel' / '-j'"),
        (("run", "tasks/delta", "-j", "many"), 2, "'many' is not a valid integer"),
        (("run", "tasks/delta", "--agent", "cua-agent"), 1, "--agent cua-agent is not supported by this cb"),
        (("run", "tasks/delta", "--oracle", "--noop"), 2, "--noop runs no solver"),
        (("run", "tasks/delta", "--model", "gpt-4o"), 2, "--model is for a model agent"),
        (("run", "tasks/delta", "--variant-id", "1", "--max-variants", "2"), 2, "not both"),
        (
            ("run", "tasks/delta", "--on", "cloud"),
            1,
            "--on is not supported by this cb: cb runs on a cua-bench backend",
        ),
        (("run", "tasks/delta", "--detach"), 1, "--detach is not supported by this cb"),
        (("run", "tasks/delta", "--backend", "vm"), 1, "vm"),
        (("run", "watch", "abc"), 1, "cb run watch is not supported by this cb"),
        (("task", "info", "nowhere"), 1, "Path not found: nowhere"),
        (("task", "list", "nowhere"), 1, "Path not found: nowhere"),
        (("task", "generate", "a 2048 game"), 1, "cb task generate is not supported"),
        (("dataset", "build", "outputs"), 1, "cb dataset build is not supported"),
        (("interact", "tasks/delta", "--oracle"), 1, "cb interact --oracle is not supported"),
        (("login",), 1, "cb login is not supported by this cb"),
        (("image", "list"), 1, "cua-bench image build BACKEND"),
    ]
    for args, want_code, want in cases:
        code, out = cb(*args)
        assert code == want_code, (args, out)
        assert len(errors(out)) == 1 and want in errors(out)[0], (args, out)
        assert "Traceback" not in out
    assert not (here / "runs").exists()  # nothing ran


def test_task_list_info_and_dataset_list(here: Path) -> None:
    for name in ("one", "two"):
        assert cb("task", "create", f"tasks/{name}")[0] == 0
    code, out = cb("task", "list", "tasks")
    assert code == 0, out
    assert [line.split() for line in out.splitlines()[2:4]] == [["one", "train=3"], ["two", "train=3"]]
    code, out = cb("task", "info", "tasks/two")
    assert code == 0, out
    assert "Variant 0: Create the file /tmp/answer.txt containing only the word 'hello'." in out
    assert "Splits: train=3  (default: train)" in out
    assert "Oracle: yes (solve_task)" in out and "Wrong ways: none" in out
    assert "os_type=linux, width=1024, height=768" in out
    code, out = cb("task", "info", "sim/click-button", "--json")
    assert code == 0, out
    info = json.loads(out)
    assert info["name"] == "click-button" and info["oracle"] is True and info["default_split"] == "test"
    assert info["splits"]["test"] == info["variants"] > 1
    code, out = cb("task", "info", "tasks")
    assert code == 1 and errors(out) == ["Error: tasks is a dataset, not a task: cb task list tasks"]
    (here / "empty").mkdir()
    code, out = cb("task", "list", "empty")
    assert code == 1 and len(errors(out)) == 1 and "no task folders" in out
    code, out = cb("dataset", "list", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(out)}
    assert {"sim", "desktop"} <= set(rows) and rows["sim"]["tasks"] > 10
    code, out = cb("dataset", "list")
    assert code == 0 and "Available Datasets:" in out and "cb run <dataset-name>" in out


def test_interact_acts_on_the_asked_variant(here: Path) -> None:
    assert cb("task", "create", "tasks/eps")[0] == 0
    code, out = cb("interact", "eps", "--dataset-path", "tasks", "--variant-id", "1", stdin="evaluate\nquit\n")
    assert code == 0, out
    assert "task: Create the file /tmp/answer.txt containing only the word 'world'." in out
    assert "reward 0.0" in out
    assert (here / "interact" / "step_000.png").is_file()
    code, out = cb("interact", "click-button", "--dataset", "sim", "--screenshots", "shots", stdin="quit\n")
    assert code == 0, out
    assert out.startswith("task: ") and (here / "shots" / "step_000.png").is_file()


def test_the_failure_hint_names_a_flag_cb_takes(here: Path) -> None:
    from support.user_errors import faulty_task

    faulty_task(here / "ts", "evaluate")
    faulty_task(here / "ts", "nowhere", name="fine")
    code, out = cb("run", "dataset", here / "ts", "--oracle")
    assert code == 1 and errors(out)[-1].endswith("; --allow-errors to exit 0"), out
    assert 'faulty/main.py", line' in out  # where the task's evaluator failed
    code, out = cb("run", "dataset", here / "ts", "--oracle", "--allow-errors")
    assert code == 0 and errors(out) == [], out
