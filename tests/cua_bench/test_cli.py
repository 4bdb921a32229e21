from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from support.bench_tasks import make_taskset

from cua_bench.cli import main
from cua_bench.settings import load_settings


def run(*args: object, stdin: str | None = None) -> tuple[int, str]:
    """The exit code, and what was printed (only stdout with --json: progress goes to stderr)."""
    result = CliRunner().invoke(main, [str(a) for a in args], input=stdin)
    return result.exit_code, result.stdout if "--json" in args else result.output


def test_run_report_and_replay(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 3)})
    code, out = run("run", tasks, "--agent", "oracle", "--output", tmp_path / "oracle", "--max-parallel", "2")
    assert code == 0, out
    assert "oracle on" in out
    assert "success 100.0%" in out
    assert "press-a" in out
    code, out = run("report", tmp_path / "oracle", "--json")
    assert code == 0
    assert json.loads(out)["success_rate"] == 1.0
    # replaying the recorded trajectories earns the same rewards
    code, out = run(
        "run",
        tasks,
        "--agent",
        "replay",
        "--agent-option",
        f"dataset={tmp_path / 'oracle' / 'trajectories'}",
        "--output",
        tmp_path / "replay",
        "--json",
    )
    assert code == 0, out
    assert json.loads(out)["success_rate"] == 1.0
    code, out = run("run", tasks, "--agent", "noop", "--output", tmp_path / "noop", "--json", "--no-record")
    assert json.loads(out)["mean_reward"] == 0.0


def test_run_refuses_bad_input_clearly(tmp_path: Path) -> None:
    code, out = run("run", "nonexistent-taskset", "--output", tmp_path / "x")
    assert code == 1
    assert "neither a folder nor a registered taskset" in out
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 1)})
    code, out = run("run", tasks, "--agent", "oracel", "--output", tmp_path / "y")
    assert code == 1
    assert "did you mean 'oracle'" in out
    code, out = run("run", tasks, "--agent-option", "nonsense", "--output", tmp_path / "z")
    assert code == 2
    assert "is not KEY=VALUE" in out
    code, out = run("report", tmp_path)
    assert code == 1
    assert "no episodes.jsonl" in out


def test_run_one_variant_index_records_that_index(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 4), "press-b": ("fast", 2)})
    code, out = run("run", tasks, "--variant", "3", "--output", tmp_path / "v3", "--json")
    assert code == 0, out
    assert json.loads(out)["episodes"] == 1  # press-b has no variant 3
    assert [json.loads(line)["key"] for line in (tmp_path / "v3/episodes.jsonl").read_text().splitlines()] == [
        "press-a/test/3"
    ]
    assert load_settings(tmp_path / "v3")["results"]["variant"] == 3
    code, out = run("run", tasks, "--variant", "1", "--variants", "2", "--output", tmp_path / "both")
    assert code == 2 and "give --variant or --variants, not both" in out
    code, out = run("run", tasks, "--variant", "7", "--output", tmp_path / "v7")
    assert code == 1 and "nothing to run (no task has variant 7 in split 'test')" in out
    code, out = run("run", tasks, "--variants", "1", "--output", tmp_path / "k1", "--json", "--no-record")
    assert code == 0 and "variant" not in load_settings(tmp_path / "k1")["results"]  # older runs still resume


def test_check_and_conformance(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 3)})
    code, out = run("check", tasks / "press-a")
    assert code == 0, out
    assert "oracle 1.0, doing nothing 0" in out
    broken = tasks / "press-a" / "main.py"
    broken.write_text(broken.read_text().replace("== 1 else 0.0", "== 1 else 1.0"))  # an evaluator that passes idle
    code, out = run("check", tasks / "press-a")
    assert code == 1
    assert "doing nothing scores 1.0, not 0" in out
    code, out = run("conformance", "sim")
    assert (code, out.strip()) == (0, "sim: conformant")


def test_interact_takes_typed_actions(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 1)})
    shots = tmp_path / "shots"
    script = "help\na11y\na11y print\nclick(500, 500)\nnot an action\nevaluate\ndone\n"
    proc = subprocess.run(
        [sys.executable, "-m", "cua_bench.cli", "interact", str(tasks / "press-a"), "--screenshots", str(shots)],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "task: Press Alpha" in proc.stdout
    assert "a11y print" in proc.stdout and "quit" in proc.stdout  # the help text
    assert '"role": "window"' in proc.stdout  # the whole tree, printed
    assert json.loads((shots / "a11y_000.json").read_text())[0]["role"] == "window"  # and written whole
    assert "step 1: click(coordinate=[500, 500])" in proc.stdout
    assert "not an action" in proc.stdout
    assert "reward 0.0" in proc.stdout
    assert "episode over: reward 0.0" in proc.stdout
    assert sorted(p.name for p in shots.glob("*.png")) == ["step_000.png", "step_001.png", "step_002.png"]


def test_list_shows_the_sim_taskset() -> None:
    code, out = run("list", "--json")
    assert code == 0
    data = json.loads(out)
    assert "sim" in data["tasksets"]
    assert "sim" in data["backends"]
    assert {"oracle", "random", "noop", "replay"} <= set(data["agents"])
